/// Why a feature running in its own process stopped: the child's end, as the host saw it.
public struct FeatureStop: Sendable, Equatable {
    /// What ended the child.
    public enum Cause: Sendable, Equatable {
        /// A signal the child raised itself or got from a fault (SIGSEGV, SIGABRT, SIGILL, SIGBUS, SIGTRAP, …).
        case crashed(signal: Int32)
        /// The child exited on its own with this status (`exit()` in plugin code, or a refusal at start).
        case exited(status: Int32)
        /// Killed from outside (SIGKILL, SIGTERM…): a limit, a person, or the kernel when nothing tells it was memory.
        case killed(signal: Int32)
        /// Killed by the kernel's out-of-memory killer (its counter of kills went up when the child died).
        case outOfMemory
        /// It did not answer a request within the deadline, so the host killed it.
        case hung(request: String, seconds: Int)
        /// It broke the host↔child protocol (garbage, an oversized or unexpected message), so the host cut it off.
        case protocolViolation(String)
        /// Its `provide(_:)` or `makeRoot(_:)` threw in the child (a manifest that promises what it does not provide,
        /// a requirement it cannot use), so the host ended it.
        case startFailed(String)
    }

    /// The library the feature came from.
    public var library: String
    /// What ended it.
    public var cause: Cause
    /// The last lines the child wrote to stderr, oldest first (escape sequences removed).
    public var stderrTail: [String]

    /// Describes a stop.
    public init(library: String, cause: Cause, stderrTail: [String] = []) {
        self.library = library
        self.cause = cause
        self.stderrTail = stderrTail
    }

    /// The stable code of the JSON `error` line: `feature-crashed`, `feature-exited`, `feature-killed`,
    /// `feature-hung` or `feature-protocol`.
    public var code: Problem.Code {
        switch cause {
        case .crashed: .featureCrashed
        case .exited: .featureExited
        case .killed, .outOfMemory: .featureKilled
        case .hung: .featureHung
        case .protocolViolation: .featureProtocol
        case .startFailed: .startFailed
        }
    }

    /// What happened, in words: `it crashed (signal 11, SIGSEGV)`.
    public var reason: String {
        switch cause {
        case .crashed(let signal): "it crashed (\(Self.describe(signal: signal)))"
        case .exited(let status): "it exited with status \(status)"
        case .killed(let signal): "it was killed (\(Self.describe(signal: signal)))"
        case .outOfMemory: "it was killed by the kernel for running out of memory (signal 9, SIGKILL)"
        case .hung(let request, let seconds): "it did not answer \(request) within \(seconds) s, so it was stopped"
        case .protocolViolation(let what): "it broke the feature protocol (\(what)), so it was cut off"
        case .startFailed(let why): "it failed to start: \(why)"
        }
    }

    private static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV",
            13: "SIGPIPE", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS",
        ]
        return names[signal].map { "signal \(signal), \($0)" } ?? "signal \(signal)"
    }
}
