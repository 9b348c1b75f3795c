import Foundation

/// The environment of the copies of itself the host starts (the probe, the supervised app): its own, with
/// `SWIFT_BACKTRACE` set for the child and `MICROAPP_INTERNAL=1`, the marker under which `microapp` accepts the hidden
/// options its copies pass each other (a guard against mistakes, not a boundary). `ChildProcess` starts them.
public enum ChildLaunch {
    /// This process's environment with `SWIFT_BACKTRACE=backtrace` and `MICROAPP_INTERNAL=1`.
    public static func environment(backtrace: String) -> [String: String] {
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFT_BACKTRACE"] = backtrace
        variables["MICROAPP_INTERNAL"] = "1"
        return variables
    }
}
