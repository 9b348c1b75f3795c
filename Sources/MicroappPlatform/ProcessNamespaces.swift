import CPlatform
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// Namespaces of its own for an isolated feature's child, as bubblewrap gives a sandbox: a user namespace mapping its
/// user and group to themselves, a mount namespace, and a PID namespace with a fresh `/proc`, so the child's `/proc`
/// lists only its own processes (no other process's command line, environment or memory maps, no pid of the host to
/// signal). The child enters them before its sandbox (`CPlatform/namespaces.c`); where the kernel refuses them, it runs
/// as it did before and the host says so once (`notice`), never claiming what is not there.
public enum ProcessNamespaces {
    /// The variable that turns them off for the children of a run (`MICROAPP_NAMESPACES=0`): to measure what they
    /// cost, or where they misbehave. The host passes it on to its children; the notice then says so.
    public static let variable = "MICROAPP_NAMESPACES"

    /// Why a process did not get its namespaces: the step that failed and its error number.
    public struct Refusal: Sendable, Equatable {
        /// The step, as `microapp_namespace_step` numbers it (`clone`, `idMap`, …).
        public enum Step: Int32, Sendable {
            /// The process had more than one thread.
            case threads = 1
            /// clone with new user, PID and mount namespaces.
            case clone
            /// Mapping the user and group to themselves.
            case idMap
            /// Making the mounts private to the new mount namespace.
            case privateMounts
            /// Mounting a proc of the new PID namespace on /proc.
            case proc
            /// Forking the feature's process inside.
            case fork
            /// Turned off by `MICROAPP_NAMESPACES=0`.
            case turnedOff = 100
        }

        /// The step that failed.
        public var step: Step
        /// Its error number (0 when turned off).
        public var errno: Int32

        /// Creates the refusal of `step` with `errno`.
        public init(step: Step, errno: Int32) {
            self.step = step
            self.errno = errno
        }

        /// What failed, for a person.
        public var reason: String {
            let error = errno == 0 ? "" : " (\(String(cString: strerror(errno))))"
            return switch step {
            case .threads: "the child had more than one thread before it could enter them"
            case .clone: "this kernel does not let this user make a user namespace\(error)"
            case .idMap: "mapping the child's user and group in its user namespace failed\(error)"
            case .privateMounts: "making the child's mounts private failed\(error)"
            case .proc: "mounting a /proc of its own was refused\(error)"
            case .fork: "starting the feature's process in its namespaces failed\(error)"
            case .turnedOff: "they are turned off (\(variable)=0)"
            }
        }

        /// What to do about it.
        public var fix: String {
            switch step {
            case .clone:
                "allow unprivileged user namespaces: `sysctl -w user.max_user_namespaces=10000` where it is 0, `sysctl -w kernel.unprivileged_userns_clone=1` on Debian 11 and older, `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for the host) on Ubuntu 23.10 and later"
            case .proc:
                "/proc is partly covered here, as in a container that masks some of its files: run the host outside such a container, or start the container with its /proc unmasked (docker run --security-opt systempaths=unconfined)"
            case .turnedOff: "unset \(variable)"
            default: "report it with `microapp doctor` output"
            }
        }
    }

    /// Moves this process's work into new namespaces (an isolated feature's child, before its sandbox, while it has
    /// one thread): returns nil in the new process (PID 2 of its namespace, its /proc its own), while this process
    /// waits outside and ends as that one ends; or the refusal, this process going on where it was.
    public static func enter() -> Refusal? {
        // Forked from the template straight into them (`fork(streams:status:)`): this is the process inside already.
        guard microapp_namespaces_entered() == 0 else { return nil }
        guard ForkedProcess.threadCount == 1 else { return Refusal(step: .threads, errno: 0) }
        var report = microapp_namespace_report()
        guard microapp_namespaces_enter(&report) != 0 else { return nil }
        return Refusal(step: Refusal.Step(rawValue: report.step) ?? .fork, errno: report.error_number)
    }

    /// In the single-threaded template isolated features' children are forked from: forks a feature's child straight
    /// into its namespaces (`microapp_namespaces_fork`): two processes, the namespace's first one, whose pid the host
    /// knows and which writes the feature's wait status on `status` when it ends, and the feature's own, where this
    /// returns 0 — where a plain fork and the child's `enter()` make three. Answers as fork does, or nil where this
    /// kernel refuses them (the template then forks plainly, and the child's `enter()` does as it always did).
    static func fork(streams: [Int32], status: Int32) -> pid_t? {
        guard refusalHere == nil else { return nil }
        var report = microapp_namespace_report()
        let pid = streams.withUnsafeBufferPointer { microapp_namespaces_fork($0.baseAddress, status, &report) }
        return pid >= 0 ? pid : nil
    }

    /// In the template, before its first fork: whether the kernel gives namespaces is tried now (a child of a
    /// millisecond), not at the first feature's fork, which would wait for it.
    package static func prepareForkTemplate() { _ = refusalHere }

    /// Whether this kernel lets this user give children their namespaces: nil when it does, else why not (a child
    /// tries once per process and ends; about a millisecond).
    public static let refusalHere: Refusal? = {
        var report = microapp_namespace_report()
        guard microapp_namespaces_probe(&report) != 0 else { return nil }
        return Refusal(step: Refusal.Step(rawValue: report.step) ?? .fork, errno: report.error_number)
    }()

    /// Why the children of a run with the environment `variables` get no namespaces; nil when they get them.
    public static func refusal(_ variables: [String: String]) -> Refusal? {
        variables[variable] == "0" ? Refusal(step: .turnedOff, errno: 0) : refusalHere
    }

    /// The `namespaces-missing` warning for a run whose isolated features start without namespaces (once per run),
    /// nil when they get them.
    public static func notice(_ variables: [String: String]) -> Problem? {
        guard let refusal = refusal(variables) else { return nil }
        return Problem(
            .namespacesMissing, subject: "isolated features",
            reason:
                "their sandboxed children run without a PID namespace of their own, so they see every process on this machine in /proc (command lines included): \(refusal.reason)",
            fix: refusal.fix)
    }

    /// One line for `doctor`.
    public static func summary(_ variables: [String: String]) -> String {
        guard let refusal = refusal(variables) else {
            return "namespaces: each isolated child has its own PID, mount and user namespace and /proc"
        }
        return
            "namespaces missing: isolated children see every process in /proc: \(refusal.reason); to fix: \(refusal.fix)"
    }
}
