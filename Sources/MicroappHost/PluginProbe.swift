import Foundation
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// Loads an untrusted library in a child process first (`microapp probe --json FILE`), so a plugin that traps or
/// hangs while loading or registering takes down the child, not the host.
public struct PluginProbe: Sendable {
    /// What the child found.
    public enum Verdict: Sendable, Equatable {
        /// The library loaded and registered in the child.
        case usable
        /// The library was refused with a diagnostic (not a crash): the in-process load would refuse it too.
        case refused(Diagnostic)
        /// The child died or hung: the library is blocked until it changes.
        case blocked(Diagnostic)
    }

    /// The executable that understands `probe --json FILE` (the host itself by default).
    public var executable: String
    /// How long a probe may take before it counts as a hang.
    public var timeout: Duration

    /// A probe that runs `executable probe --json FILE`.
    public init(
        executable: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
        timeout: Duration = .seconds(5)
    ) {
        self.executable = executable
        self.timeout = timeout
    }

    /// The child's verdict on the library at `path`.
    public func verdict(for path: String) -> Verdict {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "microapp-probe-\(UUID().uuidString)"
        ).path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        // A crash report would only slow the child down: the verdict is the signal.
        let started = ChildLaunch.withArrays([executable, "probe", "--json", path], backtrace: "enable=no") {
            posix_spawn(&pid, executable, &actions, nil, $0, $1)
        }
        guard started == 0 else {
            return .blocked(
                Diagnostic(
                    .probeFailed, subject: path, reason: "the probe process could not start (\(executable))",
                    fix: "reinstall microapp; the probe runs the host executable itself"))
        }
        let status = wait(for: pid)
        guard let status else {
            return .blocked(
                Diagnostic(
                    .probeHung, subject: path,
                    reason:
                        "loading it did not finish within \(timeout) in a probe process (it hangs in its entry or registration)",
                    fix: "fix the plugin's entry or registration; it stays blocked until the file changes"))
        }
        if status & 0x7f != 0 {
            let signal = status & 0x7f
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
            return .blocked(
                Diagnostic(
                    .probeCrashed, subject: path,
                    reason: "loading it crashed a probe process (\(name), signal \(signal))",
                    fix:
                        "run `microapp probe \(path)` to see it fail, fix the plugin; it stays blocked until the file changes"
                ))
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
        guard let result = try? JSONDecoder().decode(ProbeReport.self, from: data) else {
            return .blocked(
                Diagnostic(
                    .probeFailed, subject: path,
                    reason: "the probe process exited \(status >> 8) without a verdict",
                    fix: "run `microapp probe \(path)` by hand to see what it prints"))
        }
        if let problem = result.problem { return .refused(problem) }
        return .usable
    }

    /// Waits for `pid`, killing it at the timeout; the wait status, or nil if it had to be killed.
    private func wait(for pid: pid_t) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return status }
            if done < 0 && errno != EINTR { return status }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return nil
            }
            usleep(2_000)
        }
    }
}

/// What `microapp probe --json` prints: the library, its verdict, and its manifest or its problem.
public struct ProbeReport: Codable, Sendable {
    /// The file probed.
    public var file: String
    /// `ok` or `refused`.
    public var verdict: String
    /// The manifest, when the library is usable.
    public var manifest: FeatureManifest?
    /// Why it was refused.
    public var problem: Diagnostic?

    /// Creates a report.
    public init(file: String, verdict: String, manifest: FeatureManifest? = nil, problem: Diagnostic? = nil) {
        self.file = file
        self.verdict = verdict
        self.manifest = manifest
        self.problem = problem
    }
}
