/// A typed option: its declaration (name, placeholder, help, hidden) and how a parsed command line reads it as a
/// `Value` — a `Bool` for a flag, the converted value (or nil, or a default) for a value, every value of a
/// repeatable one. The value's conversion comes from its `ValueKind` and happens when the line is parsed.
public struct OptionSpec<Value: Sendable>: OptionDeclaring {
    /// The declaration `CommandSpec` parses and writes help for.
    public let option: Option
    /// What the converted values given for the option (in order; one `true` per flag given) read as.
    let read: @Sendable ([any Sendable]) -> Value

    /// The option as typed, with its dashes.
    public var name: String { option.name }

    /// The same option, read the same way, with another help text (for a command that uses it differently).
    public func with(help: String) -> OptionSpec {
        OptionSpec(option: option.with(help: help), read: read)
    }

    /// The same option, also spelled `short` (one dash and one letter: `-o` for `--output`).
    public func abbreviated(_ short: String) -> OptionSpec {
        OptionSpec(option: option.abbreviated(short), read: read)
    }
}

extension OptionSpec where Value == Bool {
    /// A flag: true when given.
    public static func flag(_ name: String, help: String, hidden: Bool = false) -> OptionSpec<Bool> {
        OptionSpec(option: .flag(name, help: help, hidden: hidden)) { !$0.isEmpty }
    }
}

extension OptionSpec {
    /// The option's declaration, values converted by `kind`.
    private static func declaration<Converted>(
        _ name: String, _ kind: Option.Kind, _ valueKind: ValueKind<Converted>, help: String, hidden: Bool
    ) -> Option {
        Option(
            name: name, kind: kind, help: help, isHidden: hidden,
            convert: { text, option in valueKind.convert(text, option).map { $0 as any Sendable } })
    }

    /// An option with one value of `kind` (the last one given counts); nil when it is not given.
    public static func value<Wrapped>(
        _ name: String, _ placeholder: String, _ kind: ValueKind<Wrapped>, help: String, hidden: Bool = false
    ) -> OptionSpec<Wrapped?> where Value == Wrapped? {
        OptionSpec<Wrapped?>(
            option: declaration(name, .value(placeholder: placeholder), kind, help: help, hidden: hidden)
        ) { $0.last as? Wrapped }
    }

    /// An option with one value of `kind` (the last one given counts); `defaultValue` when it is not given.
    public static func value(
        _ name: String, _ placeholder: String, _ kind: ValueKind<Value>, default defaultValue: Value, help: String,
        hidden: Bool = false
    ) -> OptionSpec<Value> {
        OptionSpec(option: declaration(name, .value(placeholder: placeholder), kind, help: help, hidden: hidden)) {
            $0.last as? Value ?? defaultValue
        }
    }

    /// An option that may be given again and again; every value, each of `kind`, in order.
    public static func repeatable<Element>(
        _ name: String, _ placeholder: String, _ kind: ValueKind<Element>, help: String, hidden: Bool = false
    ) -> OptionSpec<[Element]> where Value == [Element] {
        OptionSpec<[Element]>(
            option: declaration(name, .repeatable(placeholder: placeholder), kind, help: help, hidden: hidden)
        ) { $0.compactMap { $0 as? Element } }
    }
}

extension CommandSpec {
    /// `--help` (and `-h`), which every command accepts.
    public static let helpOption = OptionSpec<Bool>.flag("--help", help: "print this help")
}

extension ParsedCommand {
    /// The option's value as its declaration reads it; as if not given when the command does not declare it.
    public subscript<Value>(_ option: OptionSpec<Value>) -> Value {
        option.read(converted.filter { $0.name == option.name }.map(\.value))
    }
}
