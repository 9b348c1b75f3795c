import MicroappCore
import MicroappPlatform

/// The probe process's own sandbox: the one an isolated feature's child applies (limits, no new privileges, no
/// capabilities, Landlock, seccomp), so that inspecting a library (`probe`, `lock`, the start-up screening of
/// libraries bound for this process, the hot swap's probe) never runs its code with the person's rights.
extension PluginProbe {
    /// What a probe process may do: read the library (its private copy) and what the runtime maps, write nothing but
    /// `/dev/null` (its report goes to the standard output the host opened for it), no network.
    public static func sandboxPolicy(library: String, allowingUnsandboxed: Bool) -> SandboxPolicy {
        var policy = SandboxPolicy.feature(library: library, scratch: "/dev/null", network: false)
        policy.bestEffort = allowingUnsandboxed
        return policy
    }

    /// Confines this probe process before the library at `library` is mapped; call it while the process has one
    /// thread. Answers why it could not (the probe then refuses the library, and this process must end without
    /// mapping it); `allowingUnsandboxed` (`--allow-unsandboxed`) skips what the kernel lacks.
    public static func sandbox(_ library: String, allowingUnsandboxed: Bool) -> Problem? {
        do {
            try Sandbox.apply(sandboxPolicy(library: library, allowingUnsandboxed: allowingUnsandboxed))
            return nil
        } catch {
            return Problem(
                .sandboxMissing, subject: library,
                reason:
                    "it is probed in a sandboxed process, and the sandbox could not be applied: \(error.problem.reason)",
                fix: error.problem.fix)
        }
    }
}
