import MicroappSDK

/// A failure told to a person: a stable code, the thing it is about, why, and what to do. Every error the host
/// shows (on stderr, in the terminal's footer, as a JSON `error` line) is rendered from one of these, so the three
/// always say the same thing.
///
/// It lives in the host's core, not in the SDK: the SDK is the plugins' stable surface and its one boundary error
/// is `ServiceError` (code and message, shown by features in their own screens). The SDK's own errors that reach
/// people through the host (`ManifestError`, `RouteError`, `DependencyError`) adopt `ProblemDescribing` in
/// extensions here, so the plugin-facing API does not grow for a concern of the host's.
public struct Problem: Error, Sendable, Equatable {
    /// A stable machine-readable code (`bad-manifest`, `usage`); the `code` of JSON `error` lines.
    public var code: String
    /// The file, feature, setting or word the problem is about; empty when the reason names it.
    public var subject: String
    /// Why it is a problem.
    public var reason: String
    /// What to do about it.
    public var fix: String

    /// Creates a problem.
    public init(code: String, subject: String, reason: String, fix: String) {
        self.code = code
        self.subject = subject
        self.reason = reason
        self.fix = fix
    }

    /// `subject: reason`, or the reason alone when there is no subject.
    public var message: String { subject.isEmpty ? reason : "\(subject): \(reason)" }

    /// `subject: reason` and `  to fix: fix` on a second line, control characters (from file names and manifests)
    /// removed so that printing it cannot drive the terminal.
    public var text: String { "\(message.sanitized)\n  to fix: \(fix.sanitized)" }

    /// The error notice the terminal shows in its footer and `--ui json` writes as
    /// `{"type":"error","code":…,"fix":…,"message":…}`.
    public var notice: Notice { Notice(level: .error, code: code, message: message, fix: fix) }
}

/// An error a person may see: it says what, why and how to fix it as a `Problem`.
public protocol ProblemDescribing: Error {
    /// The error told as a problem.
    var problem: Problem { get }
}

extension Problem: ProblemDescribing {
    /// The problem itself.
    public var problem: Problem { self }
}

extension Diagnostic: ProblemDescribing {
    /// The diagnostic with its code's raw value.
    public var problem: Problem { Problem(code: code.rawValue, subject: subject, reason: reason, fix: fix) }
}

extension MockChoiceError: ProblemDescribing {
    /// A `mock-choice` problem; the reason names the key and the variant.
    public var problem: Problem { Problem(code: "mock-choice", subject: "", reason: reason, fix: fix) }
}

extension ManifestError: ProblemDescribing {
    /// A `bad-manifest` problem about the feature's manifest.
    public var problem: Problem { Problem(code: "bad-manifest", subject: "manifest", reason: reason, fix: fix) }
}

extension RouteError: ProblemDescribing {
    /// A `bad-route` problem about the quoted URL or pattern.
    public var problem: Problem {
        Problem(
            code: "bad-route", subject: "'\(url)'", reason: reason,
            fix: "write it as feature://path: a lowercase scheme, no empty segments, parameters as {name}")
    }
}

extension DependencyError: ProblemDescribing {
    /// A `dependency` problem about the key asked for.
    public var problem: Problem {
        Problem(code: "dependency", subject: "dependency '\(key)'", reason: reason, fix: fix)
    }
}
