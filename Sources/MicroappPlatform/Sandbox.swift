import CPlatform
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// A mechanism of the Linux sandbox.
public enum SandboxMechanism: String, Sendable, CaseIterable, Codable {
    /// Resource limits (memory, CPU time, file size, descriptors, no core dumps).
    case limits
    /// `PR_SET_NO_NEW_PRIVS`: no setuid program or file capability grants anything.
    case noNewPrivileges = "no-new-privs"
    /// Every capability dropped (matters when the host runs as root).
    case capabilities
    /// Landlock: which files may be read and written, TCP, signals and abstract sockets.
    case landlock
    /// seccomp-bpf: an allow list of system calls with argument checks (docs/sandbox.md); the rest fail.
    case seccomp
}

/// Where applying a sandbox failed: the step, the error number and, for a Landlock rule, the path.
public struct SandboxError: Error, Sendable, Equatable, ProblemDescribing {
    /// The step that failed, as `microapp_sandbox_step` numbers it.
    public enum Step: Int32, Sendable {
        /// The process had more than one thread.
        case threads = 1
        /// Setting resource limits.
        case limits
        /// `PR_SET_NO_NEW_PRIVS`.
        case noNewPrivileges
        /// Creating the Landlock ruleset (or Landlock missing).
        case landlockRuleset
        /// Adding the Landlock rule for `path`.
        case landlockRule
        /// `landlock_restrict_self`.
        case landlockRestrict
        /// Installing the seccomp filter (or seccomp missing).
        case seccomp
        /// Dropping capabilities.
        case capabilities
    }

    /// The step that failed.
    public var step: Step
    /// Its error number.
    public var errno: Int32
    /// The path of a failed rule.
    public var path: String?
    /// The mechanisms already in force when it failed: the process is partly sandboxed and should end.
    public var applied: Set<SandboxMechanism>

    /// Creates the error of `step` failing with `errno` (on `path`), `applied` already in force.
    public init(step: Step, errno: Int32, path: String? = nil, applied: Set<SandboxMechanism>) {
        self.step = step
        self.errno = errno
        self.path = path
        self.applied = applied
    }

    /// A `sandbox` problem naming the step, the error and what to do.
    public var problem: Problem {
        var problem = SystemCallError(call: action, path: path, errno: errno).problem
        problem.code = "sandbox"
        problem.fix = fix
        return problem
    }

    private var action: String {
        switch step {
        case .threads: "applying the sandbox to a process with more than one thread"
        case .limits: "setting resource limits"
        case .noNewPrivileges: "prctl(PR_SET_NO_NEW_PRIVS)"
        case .landlockRuleset: "creating the Landlock ruleset"
        case .landlockRule: "adding a Landlock rule"
        case .landlockRestrict: "landlock_restrict_self"
        case .seccomp: "installing the seccomp filter"
        case .capabilities: "dropping capabilities (capset)"
        }
    }

    private var fix: String {
        switch (step, errno) {
        case (.threads, _):
            "apply the sandbox before starting any thread (no Dispatch or Task work before it): Landlock restricts only the calling thread"
        case (.landlockRule, ENOENT): "the path does not exist: create it first or leave it out of the policy"
        case (.landlockRuleset, ENOSYS), (.landlockRuleset, EOPNOTSUPP):
            "this kernel has no Landlock (`microapp doctor` says which mechanisms are missing): enable it (lsm=…,landlock) or run with --allow-unsandboxed"
        case (.seccomp, ENOSYS), (.seccomp, ENOTSUP):
            "this kernel or architecture has no seccomp filter here: run with --allow-unsandboxed to go on without it"
        case (.limits, _): "a limit could not be set: check `ulimit -a` for hard limits below the policy's"
        default: "report it with `microapp doctor` output; the feature cannot run sandboxed on this system"
        }
    }
}

/// What `Sandbox.apply` put in force.
public struct SandboxReport: Sendable, Equatable {
    /// The mechanisms in force.
    public var applied: Set<SandboxMechanism>
    /// The Landlock ABI used, or 0 when Landlock was skipped.
    public var landlockABI: Int
}

/// What this kernel offers for sandboxing a feature.
public struct SandboxSupport: Sendable, Equatable {
    /// The highest Landlock ABI, or 0 when there is none.
    public var landlockABI: Int
    /// Why Landlock is missing (ENOSYS: not built in, EOPNOTSUPP: disabled at boot), or 0.
    public var landlockError: Int32
    /// Whether seccomp filters can be installed (the kernel has them and this build knows the architecture).
    public var seccomp: Bool
    /// Whether `PR_SET_NO_NEW_PRIVS` is available.
    public var noNewPrivileges: Bool

    /// Creates a description of what a kernel offers (`Sandbox.support` asks this one).
    public init(landlockABI: Int, landlockError: Int32, seccomp: Bool, noNewPrivileges: Bool) {
        self.landlockABI = landlockABI
        self.landlockError = landlockError
        self.seccomp = seccomp
        self.noNewPrivileges = noNewPrivileges
    }

    /// The mechanisms missing here: isolation-required features are refused unless `--allow-unsandboxed`.
    public var missing: [SandboxMechanism] {
        var missing: [SandboxMechanism] = []
        if !noNewPrivileges { missing.append(.noNewPrivileges) }
        if landlockABI == 0 { missing.append(.landlock) }
        if !seccomp { missing.append(.seccomp) }
        return missing
    }

    /// One line for `doctor`: what is there, and what is missing with its reason.
    public var summary: String {
        var parts: [String] = []
        parts.append(landlockABI > 0 ? "Landlock ABI \(landlockABI)" : "no Landlock (\(landlockReason))")
        parts.append(seccomp ? "seccomp" : "no seccomp")
        parts.append(noNewPrivileges ? "no-new-privs" : "no no-new-privs")
        if landlockABI > 0 && landlockABI < 4 { parts.append("TCP left to seccomp (Landlock ABI < 4)") }
        if landlockABI > 0 && landlockABI < 6 { parts.append("signals left to seccomp (Landlock ABI < 6)") }
        let state =
            missing.isEmpty
            ? "complete" : "incomplete: isolated features are refused unless --allow-unsandboxed"
        return "sandbox \(state): " + parts.joined(separator: ", ")
    }

    private var landlockReason: String {
        switch landlockError {
        case EOPNOTSUPP: "disabled at boot; add landlock to the kernel's lsm= list"
        case ENOSYS: "not built into this kernel"
        default: "errno \(landlockError)"
        }
    }
}

/// The Linux sandbox an isolated feature's child applies to itself before it loads the plugin library.
public enum Sandbox {
    /// What this kernel offers (asked each time; cheap: three system calls).
    public static var support: SandboxSupport {
        var support = microapp_sandbox_support()
        _ = microapp_sandbox_support(&support)
        return SandboxSupport(
            landlockABI: Int(support.landlock_abi), landlockError: support.landlock_error,
            seccomp: support.seccomp != 0 && support.seccomp_architecture != 0,
            noNewPrivileges: support.no_new_privs != 0)
    }

    /// Makes `folder` (an isolated child's scratch folder) the working directory, whatever started the process: a
    /// child forked from the zygote starts in the host's (the checkout, say), which no feature should see first.
    public static func enter(_ folder: String) throws(SystemCallError) {
        _ = try SystemCall.run("chdir", path: folder) { chdir(folder) }
    }

    /// Applies `policy` to this process for good: limits, no new privileges, no capabilities, Landlock, seccomp. Call it while the
    /// process has one thread, before the plugin is mapped; on error, end the process (it may be partly sandboxed).
    @discardableResult
    public static func apply(_ policy: SandboxPolicy) throws(SandboxError) -> SandboxReport {
        var report = microapp_sandbox_report()
        // The failed rule's path points into the copies made here: read it before they are freed.
        let (status, path) = withCStrings(policy.readPaths) { reads in
            withCStrings(policy.writePaths) { writes in
                var raw = microapp_sandbox_policy(
                    read_paths: reads.baseAddress, read_count: reads.count, write_paths: writes.baseAddress,
                    write_count: writes.count, allow_network: policy.network ? 1 : 0,
                    best_effort: policy.bestEffort ? 1 : 0, memory_limit: policy.memoryLimit,
                    address_space_limit: policy.addressSpaceLimit, cpu_seconds: policy.cpuSeconds,
                    file_size_limit: policy.fileSizeLimit, open_files_limit: policy.openFilesLimit)
                let status = microapp_sandbox_apply(&raw, &report)
                return (status, report.path.map { String(cString: $0) })
            }
        }
        let applied = mechanisms(report.applied)
        guard status == 0 else {
            throw SandboxError(
                step: SandboxError.Step(rawValue: report.step) ?? .limits, errno: report.error_number,
                path: path, applied: applied)
        }
        return SandboxReport(applied: applied, landlockABI: Int(report.landlock_abi))
    }

    private static func mechanisms(_ bits: UInt32) -> Set<SandboxMechanism> {
        let table: [(UInt32, SandboxMechanism)] = [
            (UInt32(MICROAPP_SANDBOX_LIMITS.rawValue), .limits),
            (UInt32(MICROAPP_SANDBOX_NO_NEW_PRIVS.rawValue), .noNewPrivileges),
            (UInt32(MICROAPP_SANDBOX_LANDLOCK.rawValue), .landlock),
            (UInt32(MICROAPP_SANDBOX_SECCOMP.rawValue), .seccomp),
            (UInt32(MICROAPP_SANDBOX_CAPABILITIES.rawValue), .capabilities),
        ]
        return Set(table.filter { bits & $0.0 != 0 }.map(\.1))
    }

    /// Calls `body` with `strings` as an array of C strings that live for the call.
    /// In the template children are forked from: the Swift metadata `apply` instantiates, which each child inherits.
    package static func prepareForkTemplate() {
        _ = withCStrings(["/"]) { $0.count } + mechanisms(UInt32.max).count
    }

    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer(body)
    }
}
