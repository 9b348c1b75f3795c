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
    /// A stable machine-readable code (`bad-manifest`, `usage`); the `code` of JSON `error` lines. The loader's and
    /// the resolver's codes are named below; a host adds its own as `"its-code"` or as a static let of its own.
    public struct Code: RawRepresentable, ExpressibleByStringInterpolation, Codable, Sendable, Hashable,
        CustomStringConvertible
    {
        /// The code as written in JSON (`not-found`).
        public var rawValue: String

        /// The code spelled `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code spelled by the literal (`"usage"`, or interpolated: `"sdk-\(state)"`).
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

        /// `not-found`.
        public static let notFound: Code = "not-found"
        /// `not-shared-object`.
        public static let notSharedObject: Code = "not-shared-object"
        /// `unsafe-permissions`.
        public static let unsafePermissions: Code = "unsafe-permissions"
        /// `lock-mismatch`.
        public static let lockMismatch: Code = "lock-mismatch"
        /// `lock-missing`.
        public static let lockMissing: Code = "lock-missing"
        /// `untrusted-file`.
        public static let untrustedFile: Code = "untrusted-file"
        /// `probe-crashed`.
        public static let probeCrashed: Code = "probe-crashed"
        /// `probe-hung`.
        public static let probeHung: Code = "probe-hung"
        /// `probe-failed`.
        public static let probeFailed: Code = "probe-failed"
        /// `load-failed`.
        public static let loadFailed: Code = "load-failed"
        /// `no-entry-symbol`.
        public static let noEntrySymbol: Code = "no-entry-symbol"
        /// `null-descriptor`.
        public static let nullDescriptor: Code = "null-descriptor"
        /// `abi-mismatch`.
        public static let abiMismatch: Code = "abi-mismatch"
        /// `short-descriptor`.
        public static let shortDescriptor: Code = "short-descriptor"
        /// `sdk-mismatch`.
        public static let sdkMismatch: Code = "sdk-mismatch"
        /// `bad-manifest`.
        public static let badManifest: Code = "bad-manifest"
        /// `register-failed`.
        public static let registerFailed: Code = "register-failed"
        /// `register-hung`.
        public static let registerHung: Code = "register-hung"
        /// `duplicate-feature`.
        public static let duplicateFeature: Code = "duplicate-feature"
        /// `route-conflict`.
        public static let routeConflict: Code = "route-conflict"
        /// `scheme-taken`.
        public static let schemeTaken: Code = "scheme-taken"
        /// `name-taken`.
        public static let nameTaken: Code = "name-taken"
        /// `name-confusable`.
        public static let nameConfusable: Code = "name-confusable"
        /// `missing-requirement`.
        public static let missingRequirement: Code = "missing-requirement"
        /// `wrong-type`.
        public static let wrongType: Code = "wrong-type"
        /// `wrong-access`.
        public static let wrongAccess: Code = "wrong-access"
        /// `wrong-shape`.
        public static let wrongShape: Code = "wrong-shape"
        /// `second-owner`.
        public static let secondOwner: Code = "second-owner"
        /// `second-sign-in`.
        public static let secondSignIn: Code = "second-sign-in"
        /// `duplicate-provider`.
        public static let duplicateProvider: Code = "duplicate-provider"
        /// `dependency-cycle`.
        public static let cycle: Code = "dependency-cycle"
        /// `provider-disabled`.
        public static let providerDisabled: Code = "provider-disabled"
        /// `start-failed`.
        public static let startFailed: Code = "start-failed"
        /// `unknown-capability`.
        public static let unknownCapability: Code = "unknown-capability"
        /// `capability-not-allowed`.
        public static let capabilityNotAllowed: Code = "capability-not-allowed"
        /// `sandbox-missing`.
        public static let sandboxMissing: Code = "sandbox-missing"
        /// `mock-choice`.
        public static let mockChoice: Code = "mock-choice"
        /// `not-granted`.
        public static let notGranted: Code = "not-granted"
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

    /// Creates a problem: `Problem(code: "usage", …)`.
    public init(code: Code, subject: String, reason: String, fix: String) {
        self.init(code, subject: subject, reason: reason, fix: fix)
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
    public var notice: Notice { Notice(level: .error, code: code.rawValue, message: message, fix: fix) }
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
