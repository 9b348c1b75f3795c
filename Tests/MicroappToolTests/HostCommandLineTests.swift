import CommandLineSpec
import MicroappCore
import MicroappHost
import Synchronization
import Testing

@testable import MicroappTool

/// An app's own command: `microapp greet [--person NAME]`, which records whom it greeted.
enum GreetCommand: Command {
    static let person = OptionSpec.value("--person", "NAME", .text, default: "world", help: "whom to greet")
    static let greeted = Mutex<[String]>([])

    static let declaration = CommandSpec(
        "microapp greet", summary: "greet someone, the app's own way", options: [person],
        discussion: "Greets NAME (--person), as this app does.")

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        greeted.withLock { $0.append(arguments[person]) }
        // A code no built-in path answers to a valid command line: the test sees it came from here.
        return .invalidPluginSet
    }
}

@Suite("A host adds its own options and commands to the generic tool")
@MainActor
struct HostCommandLineTests {
    /// Where the portal's services are, read by its services from `--region`.
    enum Region: String, Sendable { case eu, us }
    static let region = OptionSpec.value(
        "--region", "REGION", .choice(of: Region.self, noun: "a region", fix: "use --region eu or --region us"),
        default: .eu, help: "where the portal's services are")

    /// The regions the services were opened for, in order.
    final class Opened: Sendable {
        private let list = Mutex<[Region]>([])
        func add(_ region: Region) { list.withLock { $0.append(region) } }
        var all: [Region] { list.withLock { $0 } }
    }

    /// An app that is not the demo; `options` and `commands` are its own.
    static func portal(
        options: [Option] = [], commands: [any Command.Type] = [], opened: Opened = Opened()
    ) -> HostConfiguration {
        var host = HostConfiguration(
            name: "Portal", home: "portal://home",
            services: { _, arguments in
                opened.add(arguments[region])
                return Container()
            })
        host.options = options
        host.commands = commands
        return host
    }

    @Test("a host that adds no options has none of the demo's: run refuses --data and no help names it")
    func genericToolHasNoDemoOptions() throws {
        let commands = CommandSet(host: Self.portal())
        let help = HelpText(commands: commands)
        for option in ["--data", "--characters-url"] {
            #expect(!help.overview.contains(option))
            #expect(commands.specs.allSatisfy { !$0.help.contains(option) }, "\(option)")
            #expect(throws: Problem.self) {
                try Arguments(["run", option, "x"], commands: commands, environment: .stated())
            }
        }
    }

    @Test("a host's option is accepted by run, shown in run's help and the overview, and read typed by its services")
    func hostOptionReachesServices() async throws {
        let opened = Opened()
        let host = Self.portal(options: [Self.region.option], opened: opened)
        let commands = CommandSet(host: host)
        #expect(try #require(commands.spec(named: "run")).help.contains("--region REGION"))
        #expect(HelpText(commands: commands).overview.contains("--region REGION"))
        let arguments = try Arguments(
            ["run", "--no-build", "--no-probe", "--region", "us"], commands: commands, environment: .stated())
        _ = try await LoadedPluginSet.load(arguments, host: host, directories: [], services: .live)
        #expect(opened.all == [.us])
    }

    @Test("a bad value of a host's option is refused before anything opens, naming the option, value and fix")
    func badHostOptionValue() {
        let commands = CommandSet(host: Self.portal(options: [Self.region.option]))
        do {
            _ = try Arguments(["run", "--region", "mars"], commands: commands, environment: .stated())
            Issue.record("--region mars was accepted")
        } catch {
            #expect(error.problem.reason == "--region mars is not a region")
            #expect(error.problem.fix == "use --region eu or --region us")
        }
    }

    @Test("a host's option belongs to run only: another command refuses it")
    func hostOptionIsRunsOnly() {
        let commands = CommandSet(host: Self.portal(options: [Self.region.option]))
        #expect(throws: Problem.self) {
            try Arguments(["routes", "--region", "us"], commands: commands, environment: .stated())
        }
    }

    @Test("a host's command runs through the tool's entry with its typed options, and answers the exit code")
    func hostCommandRuns() async {
        let host = Self.portal(commands: [GreetCommand.self])
        #expect(
            await MicroappTool.dispatch(["greet", "--person", "Ann"], host: host, environment: .process)
                == .invalidPluginSet)
        #expect(await MicroappTool.dispatch(["greet", "--person"], host: host, environment: .process) == .usage)
        #expect(await MicroappTool.dispatch(["greet", "--colour"], host: host, environment: .process) == .usage)
        #expect(GreetCommand.greeted.withLock { $0.filter { $0 == "Ann" }.count } == 1)
    }

    @Test("a host's command is in the overview, has its own help, and is what a near miss suggests")
    func hostCommandIsListed() throws {
        let commands = CommandSet(host: Self.portal(commands: [GreetCommand.self]))
        let help = HelpText(commands: commands)
        #expect(help.overview.contains("microapp greet [options]"))
        #expect(help.overview.contains("greet someone, the app's own way"))
        #expect(
            help.text(for: try Arguments(["help", "greet"], commands: commands, environment: .stated()))
                == GreetCommand.declaration.help)
        #expect(
            help.text(for: try Arguments(["greet", "--help"], commands: commands, environment: .stated()))
                == GreetCommand.declaration.help)
        do {
            _ = try Arguments(["gret"], commands: commands, environment: .stated())
            Issue.record("an unknown command was accepted")
        } catch {
            #expect(error.problem.fix.contains("did you mean `microapp greet`?"))
        }
    }

    @Test("another host's tool does not have that command")
    func commandsAreTheHosts() {
        #expect(throws: Problem.self) {
            try Arguments(["greet"], commands: CommandSet(host: Self.portal()), environment: .stated())
        }
        #expect(throws: Problem.self) { try Arguments(["greet"], environment: .stated()) }
    }
}

/// A host command named like a built-in one.
enum SecondRunCommand: Command {
    static let declaration = CommandSpec("microapp run", summary: "another run", options: [])

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode { .ok }
}

@Suite("A host cannot take a name the tool has")
struct HostNameClashTests {
    @Test("a host command named like a built-in one stops the host at once")
    func commandNameClash() async {
        await #expect(processExitsWith: .failure) { _ = CommandSet(commands: [SecondRunCommand.self]) }
    }

    @Test("a host option named like one of run's stops the host at once")
    func optionNameClash() async {
        await #expect(processExitsWith: .failure) {
            _ = CommandSet(runOptions: [OptionSpec.flag("--strict", help: "the host's own strictness").option])
        }
    }
}
