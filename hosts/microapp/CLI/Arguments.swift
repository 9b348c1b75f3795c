import MicroappTerminal

/// The command line split into a command, its options and its operands; no parsing framework, by design.
struct Arguments {
    /// `run`, `routes`, `probe`, … (`run` when none is given).
    var command: String
    /// False when no command was given and `command` is `run` by default.
    private(set) var isCommandNamed = true
    private var options: [(name: String, value: String?)] = []
    /// Words that are not options, in order.
    private(set) var operands: [String] = []

    /// Options that take a value; every other `--name` is a flag.
    static let valued: Set<String> = [
        "--plugins", "--only", "--open", "--ui", "--data", "--characters-url", "--format", "--state", "--home",
        "--mock",
        "--output", "--settle-timeout", "--state-file", "--skip-library", "--crash-notice",
    ]

    init(_ words: [String]) throws(UsageError) {
        var rest = words[...]
        if let first = rest.first, !first.hasPrefix("-") {
            command = first
            rest = rest.dropFirst()
        } else {
            command = "run"
            isCommandNamed = false
        }
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") || word == "-h" else {
                operands.append(word)
                continue
            }
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0] == "-h" ? "--help" : parts[0]
            if Self.valued.contains(name) {
                guard let value = parts.count == 2 ? parts[1] : rest.popFirst() else {
                    throw UsageError("option \(name) needs a value", fix: "write `\(name) VALUE`")
                }
                options.append((name, value))
            } else {
                options.append((name, parts.count == 2 ? parts[1] : nil))
            }
        }
    }

    /// True if the flag was given.
    func flag(_ name: String) -> Bool { options.contains { $0.name == name } }

    /// The last value of an option.
    func value(_ name: String) -> String? { options.last { $0.name == name }?.value }

    /// Every value of a repeatable option.
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }

    /// Fails on options the command does not know, naming them.
    func allow(_ known: Set<String>) throws(UsageError) {
        for option in options where !known.contains(option.name) && option.name != "--help" {
            throw UsageError(
                "`microapp \(command)` has no option \(option.name)", fix: "see `microapp \(command) --help`")
        }
    }
}

/// A mistake on the command line: what, and how to write it instead. Exit code 1.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    let fix: String

    init(_ message: String, fix: String) {
        self.message = message
        self.fix = fix
    }

    var description: String { "microapp: \(message)\n  to fix: \(fix)" }

    /// Wraps a service error whose description is already `microapp: what: why` and `  to fix: …`.
    init(describing error: any Error) {
        let parts = String(describing: error).components(separatedBy: "\n  to fix: ")
        message = parts[0].hasPrefix("microapp: ") ? String(parts[0].dropFirst("microapp: ".count)) : parts[0]
        fix = parts.count > 1 ? parts[1] : "see `microapp --help`"
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
