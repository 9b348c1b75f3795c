import MicroappCore

/// A setting the app cannot use (such as a characters URL that is not a URL): what, why and how to fix it.
public struct ConfigurationError: ProblemDescribing, Sendable, Equatable, CustomStringConvertible {
    /// The setting's value.
    public var subject: String
    /// What is wrong with it.
    public var reason: String
    /// What to do about it.
    public var fix: String

    /// Creates an error.
    public init(subject: String, reason: String, fix: String) {
        self.subject = subject
        self.reason = reason
        self.fix = fix
    }

    /// `microapp: SUBJECT: reason` and `  to fix: fix` on a second line, like the CLI's other problems.
    public var description: String { "microapp: \(problem.text)" }

    /// A `bad-configuration` problem about the setting's value.
    public var problem: Problem { Problem(code: .badConfiguration, subject: subject, reason: reason, fix: fix) }
}

extension Problem.Code {
    /// The demo app's own code: a setting (`--data`, the characters URL) whose value it cannot use.
    public static let badConfiguration: Self = "bad-configuration"
}
