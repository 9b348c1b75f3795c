/// One problem with a plugin or the plugin set: what it is about, why, and how to fix it.
public struct Diagnostic: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem; its raw value is the `code` of JSON error lines.
    public enum Code: String, Codable, Sendable {
        case notFound = "not-found"
        case notSharedObject = "not-shared-object"
        case unsafePermissions = "unsafe-permissions"
        case lockMismatch = "lock-mismatch"
        case lockMissing = "lock-missing"
        case untrustedFile = "untrusted-file"
        case probeCrashed = "probe-crashed"
        case probeHung = "probe-hung"
        case probeFailed = "probe-failed"
        case loadFailed = "load-failed"
        case noEntrySymbol = "no-entry-symbol"
        case nullDescriptor = "null-descriptor"
        case abiMismatch = "abi-mismatch"
        case shortDescriptor = "short-descriptor"
        case sdkMismatch = "sdk-mismatch"
        case badManifest = "bad-manifest"
        case registerFailed = "register-failed"
        case registerHung = "register-hung"
        case duplicateFeature = "duplicate-feature"
        case routeConflict = "route-conflict"
        case schemeTaken = "scheme-taken"
        case nameTaken = "name-taken"
        case missingRequirement = "missing-requirement"
        case wrongType = "wrong-type"
        case wrongAccess = "wrong-access"
        case wrongShape = "wrong-shape"
        case secondOwner = "second-owner"
        case secondSignIn = "second-sign-in"
        case duplicateProvider = "duplicate-provider"
        case cycle = "dependency-cycle"
        case providerDisabled = "provider-disabled"
        case startFailed = "start-failed"
        case unknownCapability = "unknown-capability"
        case capabilityNotAllowed = "capability-not-allowed"
        case sandboxMissing = "sandbox-missing"
        case mockChoice = "mock-choice"
        case notGranted = "not-granted"
    }

    /// The kind of problem.
    public var code: Code
    /// The file or feature the problem is about.
    public var subject: String
    /// Why it is a problem, with the causal chain where there is one.
    public var reason: String
    /// What to do about it.
    public var fix: String

    /// Creates a diagnostic.
    public init(_ code: Code, subject: String, reason: String, fix: String) {
        self.code = code
        self.subject = subject
        self.reason = reason
        self.fix = fix
    }

    /// `subject: reason` and `  to fix: fix` on a second line, control characters (from file names and manifests)
    /// removed so that printing it cannot drive the terminal.
    public var description: String { problem.text }
}
