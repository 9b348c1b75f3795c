import CPlatform
import Foundation
import MicroappCore

/// The environment of the copies of itself the host starts (the probe, the supervised app): its own, with
/// `SWIFT_BACKTRACE` set for the child and `MICROAPP_INTERNAL=1`, the marker under which `microapp` accepts the hidden
/// options its copies pass each other (a guard against mistakes, not a boundary). `ChildProcess` starts them.
public enum ChildLaunch {
    /// The host's environment `host` with `SWIFT_BACKTRACE=backtrace` and `MICROAPP_INTERNAL=1`.
    public static func environment(_ host: HostEnvironment, backtrace: String) -> [String: String] {
        host.variables.merging(variables(backtrace: backtrace)) { $1 }
    }

    /// The variables a copy gets on top of this process's environment (a forked copy sets them itself).
    public static func variables(backtrace: String) -> [String: String] {
        ["SWIFT_BACKTRACE": backtrace, "MICROAPP_INTERNAL": "1"]
    }

    /// The environment of an isolated feature's child (and of the zygote it is forked from): only what the runtime
    /// needs (`PATH`, locale, time zone) and the internal markers, never the rest of the host's (a plugin can read
    /// its own `/proc/self/environ`, and tokens live in environments). The backtracer is off: it cannot start its
    /// helper under the sandbox.
    /// `MICROAPP_ALLOW_UNSANDBOXED=1` is there only with `allowingUnsandboxed` (`--allow-unsandboxed`: the children
    /// skip the sandbox mechanisms this kernel lacks, `SandboxPolicy.bestEffort`, instead of ending, and still apply
    /// the rest), never inherited from `host`. `MICROAPP_NAMESPACES=0` goes on from `host`: the children then start
    /// without namespaces of their own (`ProcessNamespaces`).
    public static func featureEnvironment(_ host: HostEnvironment, allowingUnsandboxed: Bool = false) -> [String:
        String]
    {
        // Each kept name looked up, not the host's every variable filtered (a warm start makes this for its probe).
        var kept = variables(backtrace: "enable=no")
        for name in ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", ProcessNamespaces.variable] {
            if let value = host.variables[name] { kept[name] = value }
        }
        if allowingUnsandboxed { kept["MICROAPP_ALLOW_UNSANDBOXED"] = "1" }
        return kept
    }

    /// In a started child whose stdout and stderr are pipes to the host: both flushed at each line, so what it
    /// prints reaches the host's log line by line.
    package static func lineBufferOutput() { microapp_line_buffer_stdio() }
}
