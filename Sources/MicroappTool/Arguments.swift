import CommandLineSpec
import Foundation
import MicroappCore

/// The command line split into a command and what its declaration (`Command.declaration`) made of the rest:
/// options with their values, converted by their kinds, and operands. Unknown options, stray operands, misused
/// flags and values of the wrong kind are refused here.
public struct Arguments {
    /// `run`, `routes`, `probe`, … (`run` when none is given).
    public let command: String
    /// False when no command was given and `command` is `run` by default.
    private(set) var isCommandNamed = true
    /// The command line as given (without the program's name).
    let words: [String]
    private let parsed: ParsedCommand
    /// The environment the command runs in (variables, folders, clock), as the composition root made it.
    public let environment: HostEnvironment

    /// Words that are not options, in order.
    public var operands: [String] { parsed.operands }

    /// Parses `words` (the command line without the program's name) by the declaration of its command among
    /// `commands`, to run in `environment`; hidden options count only when `environment` carries
    /// `Commands.internalMarker`.
    init(_ words: [String], commands: CommandSet = .builtIn, environment: HostEnvironment) throws(Problem) {
        self.words = words
        self.environment = environment
        var rest = words[...]
        if let first = rest.first, !first.hasPrefix("-") {
            command = first
            rest = rest.dropFirst()
        } else {
            command = "run"
            isCommandNamed = false
        }
        guard let spec = commands.spec(named: command) else {
            if let meant = NearMiss.closest(to: command, among: commands.names) {
                throw Problem.usage(
                    "unknown command '\(command)'",
                    fix: "did you mean `microapp \(meant)`? (`microapp --help` lists them)")
            }
            throw Problem.usage("unknown command '\(command)'", fix: "run `microapp --help` to see the commands")
        }
        do {
            parsed = try spec.parse(Array(rest), allowingHidden: environment[Commands.internalMarker] == "1")
        } catch {
            throw Problem.usage(error.message, fix: error.fix)
        }
    }

    /// The option's value as its declaration reads it: a flag's `Bool`, a value converted by its kind (or its
    /// default, or nil), every value of a repeatable one. An option the command does not declare reads as not given.
    public subscript<Value>(_ option: OptionSpec<Value>) -> Value { parsed[option] }

    /// True when `--help` (or `-h`) was given.
    var asksForHelp: Bool { self[CommandSpec.helpOption] }
}
