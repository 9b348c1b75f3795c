import MicroappSDK

/// A failure told to a person: a stable code, the thing it is about, why, and what to do. Every error the host
/// shows (on stderr, in the terminal's footer, as a JSON `error` line) is rendered from one of these, so the three
/// always say the same thing; the loader, the resolver and the probe report theirs as these too.
///
/// It lives in the host's core, not in the SDK: the SDK is the plugins' stable surface and its one boundary error
/// is `ServiceError` (code and message, shown by features in their own screens). The SDK's own errors that reach
/// people through the host (`ManifestError`, `RouteError`, `DependencyError`) adopt `ProblemDescribing` in
/// extensions here, so the plugin-facing API does not grow for a concern of the host's.
public struct Problem: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// A stable machine-readable code (`bad-manifest`, `usage`); the `code` of JSON `error` lines. Every code the
    /// package reports is named in the one catalogue, `Problem+Codes.swift`, with what it means; a host adds its own
    /// as a static let in an extension of its own.
    public struct Code: RawRepresentable, ExpressibleByStringInterpolation, Codable, Sendable, Hashable,
        CustomStringConvertible
    {
        /// The code as written in JSON (`not-found`).
        public var rawValue: String

        /// The code spelled `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code spelled by the literal: a host's own (`"storage-\(kind)"`); the package's are named.
        public init(stringLiteral value: String) { rawValue = value }

        /// Decodes the code from its raw string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the code as its raw string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The raw string.
        public var description: String { rawValue }
    }

    /// The kind of problem; its raw value is the `code` of JSON `error` lines.
    public var code: Code
    /// The file, feature, setting or word the problem is about; empty when the reason names it.
    public var subject: String
    /// Why it is a problem, with the causal chain where there is one.
    public var reason: String
    /// What to do about it.
    public var fix: String

    /// Creates a problem: `Problem(.notFound, subject: …)`.
    public init(_ code: Code, subject: String, reason: String, fix: String) {
        self.code = code
        self.subject = subject
        self.reason = reason
        self.fix = fix
    }

    /// Creates a problem: `Problem(code: .usage, …)`.
    public init(code: Code, subject: String, reason: String, fix: String) {
        self.init(code, subject: subject, reason: reason, fix: fix)
    }

    /// A mistake on the command line (`usage`, exit 1), the one shape of every such mistake: `message` names the word at
    /// fault (an option, a value, an operand), `fix` how to write it instead. The tool's commands, the loading
    /// pipeline's options and the parser's refusals (`CommandLineError`, in a module below this one) all throw this.
    public static func usage(_ message: String, fix: String) -> Problem {
        Problem(.usage, subject: "", reason: message, fix: fix)
    }

    /// A system library opened when first needed that cannot be (`system-library-missing`): `library` (its soname),
    /// what it is needed for, the dynamic linker's `reason`, and the Debian `package` that installs it.
    package static func systemLibraryMissing(
        _ library: String, package: String, neededFor purpose: String, reason: String
    ) -> Problem {
        Problem(
            .systemLibraryMissing, subject: library, reason: "\(purpose) needs it and it cannot be loaded (\(reason))",
            fix: "install it: `sudo apt-get install \(package)`")
    }

    /// `subject: reason`, or the reason alone when there is no subject.
    public var message: String { subject.isEmpty ? reason : "\(subject): \(reason)" }

    /// `subject: reason` and `  to fix: fix` on a second line, control characters (from file names and manifests)
    /// removed so that printing it cannot drive the terminal.
    public var text: String { "\(message.sanitized)\n  to fix: \(fix.sanitized)" }

    /// The same as `text`.
    public var description: String { text }

    /// The error notice the terminal shows in its footer and `--ui json` writes as
    /// `{"type":"error","code":…,"fix":…,"message":…}`.
    package var notice: Notice { Notice(level: .error, code: code, message: message, fix: fix) }
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

extension MockChoiceError: ProblemDescribing {
    /// A `mock-choice` problem; the reason names the key and the variant.
    public var problem: Problem { Problem(code: .mockChoice, subject: "", reason: reason, fix: fix) }
}

extension ManifestError: ProblemDescribing {
    /// A `bad-manifest` problem about the feature's manifest.
    public var problem: Problem { Problem(code: .badManifest, subject: "manifest", reason: reason, fix: fix) }
}

extension RouteError: ProblemDescribing {
    /// A `bad-route` problem about the quoted URL or pattern.
    public var problem: Problem {
        Problem(
            code: .badRoute, subject: "'\(url)'", reason: reason,
            fix: "write it as feature://path: a lowercase scheme, no empty segments, parameters as {name}")
    }
}

extension DependencyError: ProblemDescribing {
    /// A `dependency` problem about the key asked for.
    public var problem: Problem {
        Problem(code: .dependency, subject: "dependency '\(key)'", reason: reason, fix: fix)
    }
}
