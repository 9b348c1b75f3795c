import CommandLineSpec
import MicroappSDK

/// What `microapp --help` and `microapp COMMAND --help` print, generated from the commands' declarations as one
/// host's tool has them (its own commands and `run` options included).
struct HelpText {
    /// The commands whose help this is.
    let commands: CommandSet

    /// The SDK is the one loaded (it may be newer than the one this binary was built against).
    static var version: String { "microapp 0.1.0 (\(abi))" }

    private static var abi: String { "entry ABI 1, SDK \(SDKVersion.current)" }

    /// What `--version` prints: `version`, or for a host of its own `hello-host (MicroappTool 0.1.0, entry ABI 1, …)`
    /// (the version is the tool's, not the host's).
    static var versionLine: String {
        ProgramName.name == ProgramName.written ? version : "\(ProgramName.name) (MicroappTool 0.1.0, \(abi))"
    }

    /// `microapp --help`: every command with its summary, then the options of `run` (the default command).
    var overview: String {
        let specs = commands.specs
        let width = 2 + (specs.map(\.usage.count).max() ?? 0)
        let list = specs.map { spec in
            "  " + spec.usage.padding(toLength: width, withPad: " ", startingAt: 0) + spec.summary
        }
        let run = commands.spec(named: RunCommand.name) ?? RunCommand.declaration
        return """
            microapp — run feature plugins (shared libraries) together as one app.

            USAGE
            \(list.joined(separator: "\n"))
              microapp --help | --version

            RUN OPTIONS
            \(CommandSpec.optionLines(run.visibleOptions))

            \(run.discussion)

            \(run.epilogue)
            """
    }

    /// What `--help` prints: `microapp COMMAND --help` and `microapp help COMMAND` that command's help,
    /// `microapp --help`, `microapp help` and an unknown command the overview.
    func text(for arguments: Arguments) -> String {
        let command =
            arguments.command == HelpCommand.name && !arguments.asksForHelp
            ? arguments.operands.first : arguments.isCommandNamed ? arguments.command : nil
        return command.flatMap(commands.spec(named:)).map(\.help) ?? overview
    }
}

/// `microapp help [COMMAND]`: the help of one command, or the overview.
enum HelpCommand: Command {
    static let declaration = CommandSpec(
        "microapp help", summary: "the help of one command (same as `microapp COMMAND --help`)",
        operands: [.optional("COMMAND")],
        discussion: """
            Prints the help of COMMAND (as `microapp COMMAND --help` does), or the overview of every command.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        Console.out(HelpText(commands: CommandSet(host: host)).text(for: arguments))
        return .ok
    }
}
