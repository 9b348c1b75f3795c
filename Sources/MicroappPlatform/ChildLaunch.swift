import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How the host starts copies of itself (the probe, the supervised app) with `posix_spawn`: the C argument and
/// environment arrays, with `SWIFT_BACKTRACE` set for the child and `MICROAPP_INTERNAL=1`, the marker under which
/// `microapp` accepts the hidden options its copies pass each other (a guard against mistakes, not a boundary). Foundation's `Process` is not used for these: it
/// changes signal handling and waits on descriptors that grandchildren may keep open.
public enum ChildLaunch {
    /// Runs `body` with `argv` for `words` and this process's environment with `SWIFT_BACKTRACE=backtrace`; both
    /// arrays end with nil and live only for the call.
    public static func withArrays<R>(
        _ words: [String], backtrace: String,
        _ body: ([UnsafeMutablePointer<CChar>?], [UnsafeMutablePointer<CChar>?]) -> R
    ) -> R {
        let variables =
            ProcessInfo.processInfo.environment.filter { !["SWIFT_BACKTRACE", "MICROAPP_INTERNAL"].contains($0.key) }
            .map { "\($0.key)=\($0.value)" }
            + ["SWIFT_BACKTRACE=\(backtrace)", "MICROAPP_INTERNAL=1"]
        let argv = words.map { strdup($0) } + [nil]
        let environment = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        return body(argv, environment)
    }
}
