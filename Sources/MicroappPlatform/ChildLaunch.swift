import Foundation
import Synchronization

/// The environment of the copies of itself the host starts (the probe, the supervised app): its own, with
/// `SWIFT_BACKTRACE` set for the child and `MICROAPP_INTERNAL=1`, the marker under which `microapp` accepts the hidden
/// options its copies pass each other (a guard against mistakes, not a boundary). `ChildProcess` starts them.
public enum ChildLaunch {
    /// This process's environment with `SWIFT_BACKTRACE=backtrace` and `MICROAPP_INTERNAL=1`.
    public static func environment(backtrace: String) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(variables(backtrace: backtrace)) { $1 }
    }

    /// The variables a copy gets on top of this process's environment (a forked copy sets them itself).
    public static func variables(backtrace: String) -> [String: String] {
        ["SWIFT_BACKTRACE": backtrace, "MICROAPP_INTERNAL": "1"]
    }

    /// The environment of an isolated feature's child (and of the zygote it is forked from): only what the runtime
    /// needs (`PATH`, locale, time zone) and the internal markers, never the rest of the host's (a plugin can read
    /// its own `/proc/self/environ`, and tokens live in environments). The backtracer is off: it cannot start its
    /// helper under the sandbox.
    /// `MICROAPP_ALLOW_UNSANDBOXED=1` is there only after `allowUnsandboxed()`, never inherited.
    public static func featureEnvironment() -> [String: String] {
        let kept = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"]
        let unsandboxed = unsandboxedChildren.withLock { $0 } ? ["MICROAPP_ALLOW_UNSANDBOXED": "1"] : [:]
        return ProcessInfo.processInfo.environment.filter { kept.contains($0.key) }
            .merging(variables(backtrace: "enable=no")) { $1 }.merging(unsandboxed) { $1 }
    }

    /// `--allow-unsandboxed`: the isolated features' children started from now on skip the sandbox mechanisms this
    /// kernel lacks (`SandboxPolicy.bestEffort`) instead of ending, and still apply the rest.
    public static func allowUnsandboxed() { unsandboxedChildren.withLock { $0 = true } }

    private static let unsandboxedChildren = Mutex(false)
}
