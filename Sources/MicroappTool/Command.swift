import CommandLineSpec

/// One command of the tool, as a type: its declaration (name, summary, operands, the typed options it accepts, its
/// help) and what it does. The tool's own commands are listed in `Commands.builtIn`; a host adds its own through
/// `HostConfiguration.commands`. Parsing, `--help` and dispatch all come from these declarations.
public protocol Command: SendableMetatype {
    /// The command's declaration: `CommandSpec("microapp NAME", summary: …, options: [typed options])`.
    static var declaration: CommandSpec { get }

    /// Does the command: `arguments` were parsed by `declaration` (with `--help` answered already); answers the exit
    /// code. A `Problem` thrown (`Problem.usage` for a mistake on the command line) is printed and exits 1.
    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode
}

extension Command {
    /// The word that names the command: `run`, not `microapp run`.
    public static var name: String { CommandSet.word(of: declaration) }
}

/// The commands one host's tool has: the built-in ones, then the host's own, each with its declaration as the host
/// extends it (`run` also accepts `HostConfiguration.options`).
struct CommandSet: Sendable {
    /// Each command's type and its declaration as this host's tool parses it, in the order of the overview.
    let entries: [(type: any Command.Type, spec: CommandSpec)]

    /// The built-in commands and `host`'s, `host`'s options added to `run`. A host command named like a built-in one,
    /// or a host option named like one of `run`'s, is a mistake in the host's composition root and stops it at once,
    /// naming it.
    init(host: HostConfiguration) {
        self.init(commands: host.commands, runOptions: host.options)
    }

    /// The built-in commands, extended by `commands` and `runOptions`.
    init(commands: [any Command.Type] = [], runOptions: [Option] = []) {
        var entries: [(type: any Command.Type, spec: CommandSpec)] = []
        for type in Commands.builtIn + commands {
            let spec = type.declaration
            let word = Self.word(of: spec)
            if entries.contains(where: { Self.word(of: $0.spec) == word }) {
                preconditionFailure("the host's command '\(word)' has the name of a built-in command: rename it")
            }
            guard word == RunCommand.name else {
                entries.append((type, spec))
                continue
            }
            for option in runOptions where spec.option(option.name) != nil {
                preconditionFailure("the host's option \(option.name) is one `run` has already: rename it")
            }
            entries.append((type, spec.adding(runOptions)))
        }
        self.entries = entries
    }

    /// The built-in commands alone, as a host that adds nothing has them.
    static let builtIn = CommandSet()

    /// Every command's declaration.
    var specs: [CommandSpec] { entries.map(\.spec) }

    /// Every command's word.
    var names: [String] { specs.map(Self.word(of:)) }

    /// The command called `name` (`run`, not `microapp run`) and its declaration, or nil.
    func command(named name: String) -> (type: any Command.Type, spec: CommandSpec)? {
        entries.first { Self.word(of: $0.spec) == name }
    }

    /// The declaration of the command called `name`, or nil.
    func spec(named name: String) -> CommandSpec? { command(named: name)?.spec }

    /// `run` for `microapp run`: the last word of a declaration's name.
    static func word(of spec: CommandSpec) -> String {
        String(spec.name.split(separator: " ").last ?? Substring(spec.name))
    }
}
