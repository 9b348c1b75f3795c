import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import Synchronization

/// Loads an untrusted library in a sandboxed child process first (`microapp probe --json --sandboxed FILE`), so a
/// plugin that traps or hangs while loading or registering takes down the child, not the host, and its code (its
/// constructors, its entry, its first screens) runs only under the sandbox an isolated feature gets
/// (`PluginProbe+Sandbox.swift`).
public struct PluginProbe: Sendable {
    /// What the child found.
    public enum Verdict: Sendable, Equatable {
        /// The library loaded and registered in the child.
        case usable
        /// The library was refused with a diagnostic (not a crash): the in-process load would refuse it too.
        case refused(Problem)
        /// The child died or hung: the library is blocked until it changes.
        case blocked(Problem)
    }

    /// The executable that understands `probe --json FILE` (the host itself by default).
    public var executable: String
    /// How long a probe may take before it counts as a hang.
    public var timeout: Duration
    /// The probe child's environment variables (`ChildLaunch.featureEnvironment`).
    public var childEnvironment: [String: String]
    /// Where the child's report file is written.
    public var temporaryFolder: String
    /// The template process the probe is forked from (a fork, not a process start: the runtime is started already);
    /// nil, or a fork that fails, starts `executable` instead. Its children get the environment `childEnvironment`
    /// describes (the template was started with it, or scrubbed to it before `main`).
    public var zygote: Zygote?

    /// A probe that runs `executable probe --json FILE` (this executable when nil) from the host's `environment`; with
    /// `allowingUnsandboxed` (`--allow-unsandboxed`) its children skip the sandbox mechanisms the kernel lacks.
    public init(
        executable: String? = nil,
        environment: HostEnvironment, allowingUnsandboxed: Bool = false, timeout: Duration = .seconds(5)
    ) {
        self.executable = executable ?? FileFacts.executablePath
        self.timeout = timeout
        childEnvironment = ChildLaunch.featureEnvironment(environment, allowingUnsandboxed: allowingUnsandboxed)
        temporaryFolder = environment.temporaryFolder
    }

    /// The child's verdict on the library at `path`, from a probe process started for it.
    public func verdict(for path: String) -> Verdict { Self.verdict(outcome(for: path)) }

    /// The child's verdict on the private copy of a library; its messages name the library as it was found.
    public func verdict(for library: LibraryCopy) -> Verdict {
        switch verdict(for: library.path) {
        case .usable: .usable
        case .refused(let problem): .refused(library.naming(problem))
        case .blocked(let problem): .blocked(library.naming(problem))
        }
    }

    /// What the child found in the private copy of a library: its report (the manifest of a usable one, or the
    /// problem), naming the library as it was found. `microapp probe` and `microapp lock` show it.
    public func report(for library: LibraryCopy) -> ProbeReport {
        var report: ProbeReport
        switch outcome(for: library.path) {
        case .report(let found): report = found
        case .blocked(let problem): report = ProbeReport(file: library.path, verdict: "refused", problem: problem)
        }
        report.file = library.original
        report.problem = report.problem.map(library.naming)
        // What the host records for itself; people read the summary.
        report.library = nil
        return report
    }

    /// The child's verdict on the private copy of a library (from `standby` when it is still waiting), with what the
    /// library said about itself there when it was usable: what the probe cache records.
    public func examination(
        of library: LibraryCopy, using standby: Standby? = nil
    ) -> (verdict: Verdict, description: LibraryDescription?) {
        let outcome: Outcome
        if let child = standby?.take(), child.send(library.path) {
            outcome = self.outcome(of: child, for: library.path)
        } else {
            outcome = self.outcome(for: library.path)
        }
        let description: LibraryDescription? =
            if case .report(let report) = outcome, report.problem == nil { report.library } else { nil }
        switch Self.verdict(outcome) {
        case .usable: return (.usable, description)
        case .refused(let problem): return (.refused(library.naming(problem)), nil)
        case .blocked(let problem): return (.blocked(library.naming(problem)), nil)
        }
    }

    /// What a probe process said, or why it said nothing usable (it crashed, hung or could not start).
    private enum Outcome {
        case report(ProbeReport)
        case blocked(Problem)
    }

    private static func verdict(_ outcome: Outcome) -> Verdict {
        switch outcome {
        case .blocked(let problem): .blocked(problem)
        case .report(let report): report.problem.map(Verdict.refused) ?? .usable
        }
    }

    private func outcome(for path: String) -> Outcome {
        guard
            let child = zygote.flatMap({ ProbeChild(zygote: $0, library: path, in: temporaryFolder) })
                ?? ProbeChild(executable: executable, library: path, environment: childEnvironment, in: temporaryFolder)
        else {
            return .blocked(cannotStart(path))
        }
        return outcome(of: child, for: path)
    }

    /// Starts a probe process ahead of time: it loads the runtime, then waits for the one library it is to probe, so
    /// `verdict(for:using:)` does not wait for a process to start. Nil when it could not start.
    public func standby() -> Standby? {
        ProbeChild(executable: executable, library: nil, environment: childEnvironment, in: temporaryFolder).map(
            Standby.init)
    }

    /// The verdict on `path` from `standby` when it is still waiting (it is used up), else from a new probe process.
    public func verdict(for path: String, using standby: Standby?) -> Verdict {
        guard let child = standby?.take() else { return verdict(for: path) }
        guard child.send(path) else {
            // It ended while waiting (killed, out of memory): not the library's fault.
            child.end()
            return verdict(for: path)
        }
        return Self.verdict(outcome(of: child, for: path))
    }

    /// `verdict(for:using:)` on the private copy of a library, naming the library as it was found.
    public func verdict(for library: LibraryCopy, using standby: Standby?) -> Verdict {
        switch verdict(for: library.path, using: standby) {
        case .usable: .usable
        case .refused(let problem): .refused(library.naming(problem))
        case .blocked(let problem): .blocked(library.naming(problem))
        }
    }

    /// A probe process started ahead of time and waiting on its standard input for a library path; used once.
    /// Ends by itself when its standard input closes (when this process ends); `cancel()` ends it at once.
    public final class Standby: Sendable {
        private let child: Mutex<ProbeChild?>

        fileprivate init(_ child: ProbeChild) { self.child = Mutex(child) }

        /// The waiting process, until it is used or cancelled.
        public var processID: pid_t? { child.withLock { $0?.pid } }

        /// The waiting child, once.
        fileprivate func take() -> ProbeChild? {
            child.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }
        }

        /// Lets the waiting child end without probing anything.
        public func cancel() { take()?.end() }

        deinit { child.withLock { $0?.end() } }
    }

    /// Waits for `child` (probing `path`) within the time limit and reads what it found.
    private func outcome(of child: ProbeChild, for path: String) -> Outcome {
        defer { child.finish() }
        let termination = child.process.wait(timeout: timeout)
        // A standby that ended, or was stopped at the time limit, before it said it had the path never ran the
        // library (killed while waiting, out of memory): the verdict is a new probe process's. A send can succeed
        // to such a child while it dies, or while another process holds the socket's far end.
        guard child.tookTheLibrary else { return outcome(for: path) }
        let status: Int32
        switch termination {
        case .timedOut:
            return .blocked(
                Problem(
                    .probeHung, subject: path,
                    reason:
                        "loading it did not finish within \(timeout) of running time in a probe process (it hangs in its entry or registration)",
                    fix: "fix the plugin's entry or registration; it stays blocked until the file changes"))
        case .signalled(let signal):
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
            return .blocked(
                Problem(
                    .probeCrashed, subject: path,
                    reason: "loading it crashed a probe process (\(name), signal \(signal))",
                    fix:
                        "run `microapp probe \(path)` to see it fail, fix the plugin; it stays blocked until the file changes"
                ))
        case .exited(let code): status = code << 8
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: child.output))) ?? Data()
        guard let result = try? JSONDecoder().decode(ProbeReport.self, from: data) else {
            return .blocked(
                Problem(
                    .probeFailed, subject: path,
                    reason: "the probe process exited \(status >> 8) without a verdict",
                    fix: "run `microapp probe \(path)` by hand to see what it prints"))
        }
        return .report(result)
    }

    private func cannotStart(_ path: String) -> Problem {
        Problem(
            .probeFailed, subject: path, reason: "the probe process could not start (\(executable))",
            fix: "reinstall microapp; the probe runs the host executable itself")
    }
}

/// One `microapp probe --json --sandboxed …` process: it sandboxes itself before the library is mapped, its verdict
/// goes to a file of its own (its standard output, opened here), and with `--standby` it reads the library's path
/// from a socket on its standard input first. Its environment is an isolated feature's (`featureEnvironment`).
struct ProbeChild: Sendable {
    /// The running probe: started, or forked from a template.
    let process: IsolatedChild.IsolatedProcess
    /// Where the child writes its JSON report.
    let output: String
    /// The host's end of the child's standard input (standby children), or -1.
    private let input: Int32

    /// The child's process id.
    var pid: pid_t { process.pid }

    /// The command's words after the executable: a probe that sandboxes itself and reports in JSON.
    private static let command = ["probe", "--json", "--sandboxed"]

    /// A new report file's path in `temporaryFolder`.
    private static func reportFile(in temporaryFolder: String) -> String {
        temporaryFolder + "/microapp-probe-\(UUID().uuidString)"
    }

    /// Starts `executable probe --json` on `library`, or, for nil, one that waits for the library's path (standby).
    init?(executable: String, library: String?, environment: [String: String], in temporaryFolder: String) {
        output = Self.reportFile(in: temporaryFolder)
        let standby = library == nil
        var ends: [Int32] = [-1, -1]
        if standby {
            // A socket, not a pipe: sending to a child that died must not raise SIGPIPE in the host.
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
            else { return nil }
        }
        defer { if standby { close(ends[1]) } }
        // A crash report would only slow the child down: the verdict is the signal.
        guard
            let process = try? ChildProcess(
                [executable] + Self.command + [library ?? "--standby"],
                environment: environment,
                input: standby ? .descriptor(ends[1]) : .null, output: .file(output), error: .null)
        else {
            if standby { close(ends[0]) }
            return nil
        }
        self.process = .spawned(process)
        self.input = ends[0]
    }

    /// Forks `probe --json --sandboxed library` from `zygote`, its report written to a file of its own, its input
    /// and error `/dev/null`; nil when the template could not fork it.
    init?(zygote: Zygote, library: String, in temporaryFolder: String) {
        output = Self.reportFile(in: temporaryFolder)
        let report = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { [report, null].filter { $0 >= 0 }.forEach { close($0) } }
        guard report >= 0, null >= 0,
            let child = try? zygote.fork(
                Self.command + [library], input: null, output: report, error: null)
        else {
            unlink(output)
            return nil
        }
        process = .forked(child)
        input = -1
    }

    /// Hands a standby child the library to probe; false when it could not be told (it ended).
    func send(_ path: String) -> Bool {
        let line = Array((path + "\n").utf8)
        return line.withUnsafeBytes { Glibc.send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == line.count
    }

    /// False for a standby child that ended before it said it had the library's path (it never loaded it); true for
    /// a child started on the library. Read before `finish`.
    var tookTheLibrary: Bool {
        guard input >= 0 else { return true }
        var byte: UInt8 = 0
        return recv(input, &byte, 1, Int32(MSG_DONTWAIT)) == 1
    }

    /// Ends a child that is not needed (or could not be told what to probe) and reaps it.
    func end() {
        process.signal(SIGKILL)
        _ = process.wait()
        finish()
    }

    /// Closes the host's end of a standby child's input and removes the report, once the child has been reaped.
    func finish() {
        if input >= 0 { close(input) }
        unlink(output)
    }
}

/// What `microapp probe --json` prints: the library, its verdict, its manifest or its problem, and for a usable
/// library what the probe checked and what it could not check (`ok` is only as strong as the checks behind it).
public struct ProbeReport: Codable, Sendable {
    /// The file probed.
    public var file: String
    /// `ok` or `refused`.
    public var verdict: String
    /// The manifest, when the library is usable.
    public var manifest: ManifestSummary?
    /// Why it was refused.
    public var problem: Problem?
    /// What a usable library passed: `loaded`, `registered`, `manifest`, and `first screens` when they were drawn.
    public var checked: [String]?
    /// What the probe did not check and why, such as `first screens (no mocks)`; empty when all was checked.
    public var notChecked: [String]?
    /// The library's whole manifest and SDK version, for the host that started the probe to record (absent from
    /// what `microapp probe` prints).
    public var library: LibraryDescription?

    /// Creates a report.
    public init(
        file: String, verdict: String, manifest: FeatureManifest? = nil, problem: Problem? = nil,
        checked: [String]? = nil, notChecked: [String]? = nil
    ) {
        self.file = file
        self.verdict = verdict
        self.manifest = manifest.map(ManifestSummary.init)
        self.problem = problem
        self.checked = checked
        self.notChecked = notChecked
    }
}
