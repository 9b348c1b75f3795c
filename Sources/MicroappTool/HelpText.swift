import CommandLineSpec
import MicroappSDK

/// What `microapp --help` and `microapp COMMAND --help` print, generated from `Commands`.
enum HelpText {
    /// The SDK is the one loaded (it may be newer than the one this binary was built against).
    static var version: String { "microapp 0.1.0 (entry ABI 1, SDK \(SDKVersion.current))" }

    /// `microapp --help`: every command with its summary, then the options of `run` (the default command).
    static var overview: String {
        let width = 2 + (Commands.all.map(\.usage.count).max() ?? 0)
        let list = Commands.all.map { spec in
            "  " + spec.usage.padding(toLength: width, withPad: " ", startingAt: 0) + spec.summary
        }
        return """
            microapp — run feature plugins (shared libraries) together as one app.

            USAGE
            \(list.joined(separator: "\n"))
              microapp --help | --version

            RUN OPTIONS
            \(CommandSpec.optionLines(Commands.run.visibleOptions))

            \(Commands.run.discussion)

            \(Commands.run.epilogue)
            """
    }

    /// What `--help` prints: `microapp COMMAND --help` and `microapp help COMMAND` that command's help,
    /// `microapp --help`, `microapp help` and an unknown command the overview.
    static func text(for arguments: Arguments) -> String {
        let command =
            arguments.command == "help" && !arguments.flag("--help")
            ? arguments.operands.first : arguments.isCommandNamed ? arguments.command : nil
        return command.flatMap(Commands.spec(named:)).map(\.help) ?? overview
    }
}
