import CommandLineSpec
import Foundation
import MicroappCore
import MicroappTerminal

/// The command line split into a command and what its `CommandSpec` (in `Commands`) made of the rest: options
/// with their values, and operands. Unknown options, stray operands and misused flags are refused here.
public struct Arguments {
    /// `run`, `routes`, `probe`, … (`run` when none is given).
    var command: String
    /// False when no command was given and `command` is `run` by default.
    private(set) var isCommandNamed = true
    private let parsed: ParsedCommand
    /// The environment the command runs in (variables, folders, clock), as the composition root made it.
    public let environment: HostEnvironment

    /// Words that are not options, in order.
    var operands: [String] { parsed.operands }

    /// Parses `words` (the command line without the program's name), to run in `environment`; hidden options count
    /// only when `environment` carries `Commands.internalMarker`.
    init(_ words: [String], environment: HostEnvironment) throws(UsageError) {
        self.environment = environment
        var rest = words[...]
        if let first = rest.first, !first.hasPrefix("-") {
            command = first
            rest = rest.dropFirst()
        } else {
            command = "run"
            isCommandNamed = false
        }
        guard let spec = Commands.spec(named: command) else {
            let names = Commands.all.map { String($0.name.dropFirst("microapp ".count)) }
            if let meant = NearMiss.closest(to: command, among: names) {
                throw UsageError(
                    "unknown command '\(command)'",
                    fix: "did you mean `microapp \(meant)`? (`microapp --help` lists them)")
            }
            throw UsageError("unknown command '\(command)'", fix: "run `microapp --help` to see the commands")
        }
        do {
            parsed = try spec.parse(Array(rest), allowingHidden: environment[Commands.internalMarker] == "1")
        } catch {
            throw UsageError(error.message, fix: error.fix)
        }
    }

    /// True if the flag was given.
    public func flag(_ name: String) -> Bool { parsed.flag(name) }

    /// The last value of an option.
    public func value(_ name: String) -> String? { parsed.value(name) }

    /// Every value of a repeatable option.
    public func values(_ name: String) -> [String] { parsed.values(name) }
}

/// A mistake on the command line: what, and how to write it instead. Exit code 1.
struct UsageError: ProblemDescribing, CustomStringConvertible {
    let problem: Problem

    /// A `usage` problem whose message names the word at fault.
    init(_ message: String, fix: String) {
        problem = Problem(code: "usage", subject: "", reason: message, fix: fix)
    }

    /// Another error's problem (a setting or file the app cannot use), told the same way.
    init(_ error: some ProblemDescribing) { problem = error.problem }

    /// `microapp: what: why` and `  to fix: …` on the next line.
    var description: String { "microapp: \(problem.text)" }
}

extension Arguments {
    /// `--open URL`, checked before anything starts: nil when absent or empty; a URL that is not `feature://path`
    /// (no scheme, an empty segment as in `characters//detail/2`) is a usage error naming it.
    func openURL() throws(UsageError) -> String? {
        guard let url = value("--open"), !url.isEmpty else { return nil }
        do {
            _ = try RoutePattern.components(of: url)
        } catch {
            throw UsageError("--open \(url): \(error.reason)", fix: "write a route like --open characters://detail/2")
        }
        return url
    }
}

extension FrontEnd {
    /// How long `--ui json` and `--ui text` wait for the app to settle before each event: `--settle-timeout
    /// SECONDS`, 10 s by default.
    static func settleTimeout(from arguments: Arguments) throws(UsageError) -> Duration {
        guard let text = arguments.value("--settle-timeout") else { return .seconds(10) }
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw UsageError(
                "--settle-timeout \(text) is not a number of seconds above 0", fix: "write e.g. `--settle-timeout 30`")
        }
        return .seconds(seconds)
    }

    /// The front end `--ui` asks for, or a usage error naming the choices.
    static func chosen(by arguments: Arguments) throws(UsageError) -> FrontEnd {
        guard let frontEnd = FrontEnd.choose(arguments.value("--ui")) else {
            throw UsageError(
                "--ui \(arguments.value("--ui") ?? "") is not a front end",
                fix: "use --ui terminal, --ui text or --ui json")
        }
        return frontEnd
    }
}
