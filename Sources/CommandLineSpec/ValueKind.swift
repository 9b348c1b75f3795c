/// How the text written after an option becomes a value: the one place a kind of value is checked. A value that
/// cannot be converted is refused by `CommandSpec.parse`, which names the option, the value and the fix.
public struct ValueKind<Value: Sendable>: Sendable {
    /// The conversion of `text`, written after the option called `option` (a fix may show it in an example).
    let convert: @Sendable (_ text: String, _ option: String) -> Result<Value, ValueRejection>

    /// A kind converting with `convert`, which answers the value or why the text is not one.
    public init(_ convert: @escaping @Sendable (_ text: String, _ option: String) -> Result<Value, ValueRejection>) {
        self.convert = convert
    }

    /// The value as written.
    public static var text: ValueKind<String> { ValueKind<String> { text, _ in .success(text) } }

    /// A number of seconds above 0 (`--settle-timeout 2.5`), as a `Duration`.
    public static var seconds: ValueKind<Duration> { positive("seconds", example: "30", inSeconds: 1) }

    /// A number of minutes above 0 (`--check-every 10`, `--check-every 0.5`), as a `Duration`.
    public static var minutes: ValueKind<Duration> { positive("minutes", example: "10", inSeconds: 60) }

    /// A TCP port, 0 to 65535 (`--port 8080`; 0 lets the system pick a free one).
    public static var port: ValueKind<UInt16> {
        ValueKind<UInt16> { text, option in
            guard let port = UInt16(text) else {
                return .failure(
                    .isNot(
                        "a port from 0 to 65535", fix: "write e.g. `\(option) 8080`, or `\(option) 0` for any free port"
                    ))
            }
            return .success(port)
        }
    }

    /// A number of `unit`s above 0, each `inSeconds` long, as a `Duration`.
    private static func positive(_ unit: String, example: String, inSeconds: Double) -> ValueKind<Duration> {
        ValueKind<Duration> { text, option in
            guard let value = Double(text), value > 0, value.isFinite else {
                return .failure(.isNot("a number of \(unit) above 0", fix: "write e.g. `\(option) \(example)`"))
            }
            return .success(.seconds(value * inSeconds))
        }
    }

    /// One of `choices`, as written; any other text is not a `noun` (`--format svg is not a graph format`).
    public static func choice(_ choices: [String], noun: String, fix: String) -> ValueKind<String> {
        ValueKind<String> { text, _ in choices.contains(text) ? .success(text) : .failure(.isNot(noun, fix: fix)) }
    }

    /// The case of `T` whose raw value is the text; any other text is not a `noun`.
    public static func choice<T: RawRepresentable & Sendable>(of type: T.Type, noun: String, fix: String)
        -> ValueKind<T> where T.RawValue == String
    {
        ValueKind<T> { text, _ in T(rawValue: text).map { .success($0) } ?? .failure(.isNot(noun, fix: fix)) }
    }

    /// Two parts around the first `=` (`FEATURE=KEY`), neither empty; anything else is not `shape`.
    public static func pair(_ shape: String, fix: String) -> ValueKind<KeyValuePair> {
        ValueKind<KeyValuePair> { text, _ in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                return .failure(.isNot(shape, fix: fix))
            }
            return .success(KeyValuePair(key: parts[0], value: parts[1]))
        }
    }
}

/// `KEY=VALUE` as two parts: `--grant auth=session`, `--mock characters.page=failing`.
public struct KeyValuePair: Sendable, Equatable {
    /// What stands before the `=`.
    public let key: String
    /// What stands after it.
    public let value: String

    /// The pair `key=value`.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// Why a value is not one of its option's kind, and how to write it instead.
public struct ValueRejection: Error, Sendable, Equatable {
    /// How the reason reads after `--option VALUE`.
    enum Form: Sendable, Equatable {
        /// `--option VALUE is not NOUN`.
        case isNot(String)
        /// `--option VALUE: REASON`.
        case because(String)
    }

    let form: Form
    /// How to write it instead.
    public let fix: String

    /// The value is not a `noun`: `--format svg is not a graph format`.
    public static func isNot(_ noun: String, fix: String) -> ValueRejection {
        ValueRejection(form: .isNot(noun), fix: fix)
    }

    /// The value cannot be used for `reason`: `--allow disk: no capability has that name`.
    public static func because(_ reason: String, fix: String) -> ValueRejection {
        ValueRejection(form: .because(reason), fix: fix)
    }
}

extension CommandLineError {
    /// The error for `text` written after `option`, which its kind refused: the option, the value, the fix.
    init(option: String, text: String, rejection: ValueRejection) {
        switch rejection.form {
        case .isNot(let noun): self.init("\(option) \(text) is not \(noun)", fix: rejection.fix)
        case .because(let reason): self.init("\(option) \(text): \(reason)", fix: rejection.fix)
        }
    }
}
