/// A command line checked against its `CommandSpec`: the options given, with their values, and the operands.
public struct ParsedCommand: Sendable {
    /// The options in the order given, with their values (nil for a flag).
    public internal(set) var given: [(name: String, value: String?)] = []
    /// The words that are not options, in order (every word after `--` is one).
    public internal(set) var operands: [String] = []
    /// The options given, each value converted by its kind (`true` for a flag): what an `OptionSpec` reads.
    var converted: [(name: String, value: any Sendable)] = []

    /// True if the flag was given.
    public func flag(_ name: String) -> Bool { given.contains { $0.name == name } }

    /// The last value of an option.
    public func value(_ name: String) -> String? { given.last { $0.name == name }?.value }

    /// Every value of a repeatable option.
    public func values(_ name: String) -> [String] { given.filter { $0.name == name }.compactMap(\.value) }
}

/// A mistake on the command line: what is wrong and how to write it instead.
///
/// A command-line mistake as this module, which sees no host types, tells it; a host tells it as its one shape of such
/// mistakes (the tool: `Problem.usage`, code `usage`).
public struct CommandLineError: Error, CustomStringConvertible, Equatable {
    /// What is wrong, naming the word.
    public let message: String
    /// How to write it instead.
    public let fix: String

    /// An error saying what and how to fix it.
    public init(_ message: String, fix: String) {
        self.message = message
        self.fix = fix
    }

    /// `what` and `  to fix: …` on the next line.
    public var description: String { "\(message)\n  to fix: \(fix)" }
}

extension CommandSpec {
    /// Parses `words` (what follows the command's name). Options are `--name`, `--name VALUE` or `--name=VALUE`;
    /// `-h` is `--help`, and an option's short name (`-o`) is the option; `--` ends the options. A value that starts with `-` must be written `--name=-value`, so a
    /// forgotten value never swallows the next option. Hidden options count only when `allowingHidden` is true.
    /// Each value is converted by its option's `ValueKind`; one it refuses is an error naming the option, the value
    /// and the fix. Values and operands are checked unless `--help` was given.
    package func parse(_ words: [String], allowingHidden: Bool = false) throws(CommandLineError) -> ParsedCommand {
        var parsed = ParsedCommand()
        // The first value its kind refuses; said unless --help was asked for, which needs no value to be right.
        var refused: CommandLineError?
        func given(_ option: Option, _ text: String) {
            parsed.given.append((option.name, text))
            switch option.convert?(text, option.name) ?? .success(text) {
            case .success(let value): parsed.converted.append((option.name, value))
            case .failure(let rejection):
                refused = refused ?? CommandLineError(option: option.name, text: text, rejection: rejection)
            }
        }
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "--" {
                parsed.operands += rest
                break
            }
            guard word.hasPrefix("-"), word != "-" else {
                parsed.operands.append(word)
                continue
            }
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let name =
                parts[0] == "-h" ? "--help" : options.first { $0.shortName == parts[0] }.map(\.name) ?? parts[0]
            guard let option = option(name), allowingHidden || !option.isHidden else {
                let names = visibleOptions.map(\.name)
                if let meant = NearMiss.closest(to: name, among: names) {
                    throw CommandLineError(
                        "`\(self.name)` has no option \(name)", fix: "did you mean \(meant)? see `\(self.name) --help`")
                }
                throw CommandLineError(
                    "`\(self.name)` has no option \(name)",
                    fix: "its options are \(names.joined(separator: ", ")); see `\(self.name) --help`")
            }
            guard let placeholder = option.placeholder else {
                guard parts.count == 1 else {
                    throw CommandLineError(
                        "\(name) is a flag and takes no value (\(word))",
                        fix: "write \(name) alone to turn it on, or leave it out")
                }
                parsed.given.append((name, nil))
                parsed.converted.append((name, true))
                continue
            }
            if parts.count == 2 {
                given(option, parts[1])
            } else if let value = rest.first, !value.hasPrefix("-") || value == "-" {
                given(option, value)
                rest = rest.dropFirst()
            } else {
                throw CommandLineError(
                    "\(name) needs a value" + (rest.first.map { ", not the option \($0)" } ?? ""),
                    fix: "write `\(name) \(placeholder)` (a value that starts with '-' as `\(name)=-…`)")
            }
        }
        if !parsed.flag("--help") {
            if let refused { throw refused }
            try checkCount(of: parsed.operands)
        }
        return parsed
    }

    private func checkCount(of given: [String]) throws(CommandLineError) {
        let least = operands.filter(\.isRequired).count
        let most = operands.contains(where: \.isRepeatable) ? Int.max : operands.count
        if given.count < least {
            let missing = operands.filter(\.isRequired)[given.count].name
            throw CommandLineError("`\(name)` needs \(missing)", fix: "write `\(usage)`")
        }
        if given.count > most {
            let stray = given[most...].map { "'\($0)'" }.joined(separator: ", ")
            throw CommandLineError(
                "`\(name)` takes \(most == 0 ? "no operand" : "at most \(most) operand(s)"), not \(stray)",
                fix: "write `\(usage)` (see `\(name) --help`)")
        }
    }
}
