import CommandLineSpec
import DemoServices
import Foundation
import TestScratch
import Testing

@testable import MicroappTool

@Suite("Every command's help comes from its declaration")
struct CommandHelpTests {
    /// The demo host's commands: the tool's own, `run` with the demo's options added.
    static let commands = CommandSet(runOptions: DemoOptions.all)
    static let run = commands.spec(named: "run")!

    /// The `--name` words of a help text, each with the command it belongs to: the command the help is for, or the
    /// one a line's example names (`microapp solo … --mock`; `microapp --open …` is `run`).
    static func optionNames(in text: String, of spec: CommandSpec) -> [(name: String, command: CommandSpec)] {
        let option = try! Regex("--[a-z][a-z-]*")
        let example = try! Regex("microapp ([a-z]+|--)")
        return text.split(separator: "\n").flatMap { line in
            let named = line.firstMatch(of: example).map { String(line[$0.range].dropFirst("microapp ".count)) }
            let owner = named.map { $0 == "--" ? run : commands.spec(named: $0) ?? spec } ?? spec
            return line.matches(of: option).map { (String(line[$0.range]), owner) }
        }
    }

    @Test(
        "every option a command accepts appears in its help, except the hidden ones",
        .offThePool, arguments: commands.names)
    func acceptedOptionsAreInTheHelp(command: String) throws {
        let spec = try #require(Self.commands.spec(named: command))
        let named = Set(Self.optionNames(in: spec.help, of: spec).map(\.name))
        for option in spec.options {
            #expect(named.contains(option.name) == !option.isHidden, "\(spec.name) \(option.name)")
        }
    }

    @Test("every option a command's help names is one that command accepts", .offThePool, arguments: commands.names)
    func namedOptionsAreReal(command: String) throws {
        let spec = try #require(Self.commands.spec(named: command))
        for (name, owner) in Self.optionNames(in: spec.help, of: spec) {
            #expect(owner.option(name).map { !$0.isHidden } == true, "\(spec.name) --help names \(name)")
        }
    }

    @Test(
        "every option the overview names is one of `run` (or of the command its line names), or --version", .offThePool)
    func overviewNamesRealOptions() {
        for (name, owner) in Self.optionNames(in: HelpText(commands: Self.commands).overview, of: Self.run)
        where name != "--version" {
            #expect(owner.option(name).map { !$0.isHidden } == true, "the overview names \(name)")
        }
    }
}

@Suite("The command line is parsed by its declaration")
struct CommandParsingTests {
    static let spec = CommandSpec(
        "tool", summary: "a tool", operands: [.optional("FILE")],
        options: [
            .flag("--strict", help: "strict"), .value("--open", "URL", help: "open"),
            .repeatable("--plugins", "DIR", help: "plugins"), .flag("--secret", help: "internal", hidden: true),
        ])

    @Test("values, repeated values, flags, `--name=value` and operands are read as written", .offThePool)
    func readsWhatWasWritten() throws {
        let parsed = try Self.spec.parse(["--open", "a://b", "--plugins=x", "--plugins", "y", "--strict", "f"])
        #expect(parsed.value("--open") == "a://b")
        #expect(parsed.values("--plugins") == ["x", "y"])
        #expect(parsed.flag("--strict") && !parsed.flag("--secret"))
        #expect(parsed.operands == ["f"])
    }

    @Test("an unknown option is refused, naming it and the command's options", .offThePool)
    func unknownOption() {
        #expect(throws: CommandLineError.self) { try Self.spec.parse(["--colour"]) }
        do {
            _ = try Self.spec.parse(["--colour"])
        } catch {
            #expect(error.message.contains("--colour") && error.fix.contains("--strict, --open, --plugins"))
        }
    }

    @Test("a flag given a value is refused instead of counting as given", .offThePool)
    func flagWithValue() {
        #expect(throws: CommandLineError.self) { try Self.spec.parse(["--strict=no"]) }
    }

    @Test("a value option followed by an option is refused; a value starting with '-' is written with '='", .offThePool)
    func valueNeverSwallowsAnOption() throws {
        #expect(
            throws: CommandLineError(
                "--open needs a value, not the option --strict",
                fix: "write `--open URL` (a value that starts with '-' as `--open=-…`)")
        ) {
            try Self.spec.parse(["--open", "--strict"])
        }
        #expect(throws: CommandLineError.self) { try Self.spec.parse(["--open"]) }
        #expect(try Self.spec.parse(["--open=-x"]).value("--open") == "-x")
        #expect(try Self.spec.parse(["--open="]).value("--open") == "")
    }

    @Test("`--` ends the options: every word after it is an operand", .offThePool)
    func doubleDashEndsOptions() throws {
        #expect(try Self.spec.parse(["--strict", "--", "--open"]).operands == ["--open"])
    }

    @Test("an operand more than the command declares is refused, naming it", .offThePool)
    func strayOperand() {
        do {
            _ = try Self.spec.parse(["one", "two"])
            Issue.record("a stray operand was accepted")
        } catch {
            #expect(error.message.contains("'two'"))
        }
    }

    @Test("a hidden option is refused unless hidden options are allowed, and never shown in the help", .offThePool)
    func hiddenOptions() throws {
        #expect(throws: CommandLineError.self) { try Self.spec.parse(["--secret"]) }
        #expect(try Self.spec.parse(["--secret"], allowingHidden: true).flag("--secret"))
        #expect(!Self.spec.help.contains("--secret"))
    }

    @Test("microapp's internal options count only under MICROAPP_INTERNAL=1, which its children get", .offThePool)
    func internalMarker() throws {
        #expect(throws: Problem.self) { try Arguments(["run", "--supervised"], environment: .stated()) }
        let marked = try Arguments(["run", "--supervised"], environment: .stated([Commands.internalMarker: "1"]))
        #expect(marked[RunCommand.supervised])
    }
}
