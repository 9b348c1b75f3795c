/// One command of an executable, declared once: its options, operands and help. Parsing, validation and the help
/// text all come from this description, so what is accepted and what `--help` says cannot drift apart.
public struct CommandSpec: Sendable {
    /// How the command is typed, e.g. `microapp solo` or `monolith`.
    public let name: String
    /// One line: what the command does (the overview's list of commands shows it).
    public let summary: String
    /// The words that are not options, in order.
    public let operands: [Operand]
    /// Every option, the hidden ones included.
    public let options: [Option]
    /// Paragraphs between the usage line and the options.
    public let discussion: String
    /// Paragraphs after the options (exit codes, examples).
    public let epilogue: String

    /// A command with its options and operands; `--help` (and `-h`) is added to every command.
    public init(
        _ name: String, summary: String, operands: [Operand] = [], options: [Option] = [], discussion: String = "",
        epilogue: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.operands = operands
        self.options = options + [Self.helpOption.option]
        self.discussion = discussion
        self.epilogue = epilogue
    }

    /// A command with typed options (`OptionSpec`s) and operands; `--help` (and `-h`) is added to every command.
    public init(
        _ name: String, summary: String, operands: [Operand] = [], options: [any OptionDeclaring],
        discussion: String = "", epilogue: String = ""
    ) {
        self.init(
            name, summary: summary, operands: operands, options: options.map(\.option), discussion: discussion,
            epilogue: epilogue)
    }

    /// The same command accepting `more` options too, after its own (and before `--help`): how a program adds
    /// options to a command it did not declare.
    package func adding(_ more: [Option]) -> CommandSpec {
        CommandSpec(
            name, summary: summary, operands: operands, options: Array(options.dropLast()) + more,
            discussion: discussion,
            epilogue: epilogue)
    }

    /// The option called `name`, hidden or not.
    package func option(_ name: String) -> Option? { options.first { $0.name == name } }

    /// The options people see in the help: every option except the hidden ones.
    package var visibleOptions: [Option] { options.filter { !$0.isHidden } }
}

/// Anything that declares an option: an `Option`, or an `OptionSpec` that also reads it as a typed value.
public protocol OptionDeclaring: Sendable {
    /// The declaration `CommandSpec` parses and writes help for.
    var option: Option { get }
}

/// One option: a flag (`--strict`), an option with a value (`--open URL`), or one that may be given again and
/// again (`--plugins DIR`).
public struct Option: OptionDeclaring {
    /// What follows the option's name.
    public enum Kind: Sendable, Equatable {
        /// Nothing: the option is on or off.
        case flag
        /// One value (the last one given counts), shown as `placeholder` in the help.
        case value(placeholder: String)
        /// A value that may be given more than once; all of them count.
        case repeatable(placeholder: String)
    }

    /// The option as typed, with its dashes: `--open`.
    public let name: String
    /// Flag, value or repeatable value.
    public let kind: Kind
    /// What the option does; several lines are kept as written.
    public let help: String
    /// An option between processes of the program, not for people: left out of the help, and accepted only when
    /// the parser is told that internal options are allowed.
    public let isHidden: Bool
    /// A one-letter spelling with one dash (`-o` for `--output`), or nil.
    public let shortName: String?
    /// How a value written after the option becomes the value its `OptionSpec` reads (nil: kept as written), and
    /// what is wrong with one that cannot.
    let convert: (@Sendable (_ text: String, _ option: String) -> Result<any Sendable, ValueRejection>)?

    /// An option that keeps its values as written.
    init(name: String, kind: Kind, help: String, isHidden: Bool) {
        self.init(name: name, kind: kind, help: help, isHidden: isHidden, convert: nil)
    }

    /// An option whose values `convert` checks and converts when the command line is parsed.
    init(
        name: String, kind: Kind, help: String, isHidden: Bool,
        convert: (@Sendable (_ text: String, _ option: String) -> Result<any Sendable, ValueRejection>)?,
        shortName: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.help = help
        self.isHidden = isHidden
        self.convert = convert
        self.shortName = shortName
    }

    /// The option itself.
    public var option: Option { self }

    /// The same option with another help text (one option read the same way, described for another command).
    public func with(help: String) -> Option {
        Option(name: name, kind: kind, help: help, isHidden: isHidden, convert: convert, shortName: shortName)
    }

    /// The same option, also spelled `short` (one dash and one letter, `-o`).
    public func abbreviated(_ short: String) -> Option {
        precondition(short.count == 2 && short.hasPrefix("-") && short != "-h", "a short option is -<letter>, not -h")
        return Option(name: name, kind: kind, help: help, isHidden: isHidden, convert: convert, shortName: short)
    }

    /// A flag.
    public static func flag(_ name: String, help: String, hidden: Bool = false) -> Option {
        Option(name: name, kind: .flag, help: help, isHidden: hidden)
    }

    /// An option with one value.
    public static func value(_ name: String, _ placeholder: String, help: String, hidden: Bool = false) -> Option {
        Option(name: name, kind: .value(placeholder: placeholder), help: help, isHidden: hidden)
    }

    /// An option whose value may be given more than once.
    public static func repeatable(_ name: String, _ placeholder: String, help: String, hidden: Bool = false)
        -> Option
    {
        Option(name: name, kind: .repeatable(placeholder: placeholder), help: help, isHidden: hidden)
    }

    /// The value's placeholder, or nil for a flag.
    public var placeholder: String? {
        switch kind {
        case .flag: nil
        case .value(let placeholder), .repeatable(let placeholder): placeholder
        }
    }

    /// `--open URL`, `--strict`, `-o, --output DIR`: the option as the help shows it.
    public var synopsis: String {
        let names = shortName.map { "\($0), \(name)" } ?? name
        return placeholder.map { "\(names) \($0)" } ?? names
    }
}

/// A word of a command that is not an option: `FEATURE`, `[ROUTE]`, `[DIR]...`.
public struct Operand: Sendable {
    /// Its placeholder in the usage line.
    public let name: String
    /// False when the operand may be left out.
    public let isRequired: Bool
    /// True when any number of them may follow (only the last operand).
    public let isRepeatable: Bool

    /// An operand that must be given.
    public static func required(_ name: String) -> Operand {
        Operand(name: name, isRequired: true, isRepeatable: false)
    }

    /// An operand that may be left out.
    public static func optional(_ name: String) -> Operand {
        Operand(name: name, isRequired: false, isRepeatable: false)
    }

    /// Any number of operands, none included.
    public static func repeatable(_ name: String) -> Operand {
        Operand(name: name, isRequired: false, isRepeatable: true)
    }

    /// `FEATURE`, `[ROUTE]` or `[DIR]...`.
    public var synopsis: String {
        isRequired ? name : isRepeatable ? "[\(name)]..." : "[\(name)]"
    }
}
