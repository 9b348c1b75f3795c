import CPlatform
import Foundation
import MicroappPlatform
import Synchronization
import TestScratch

/// The real `microapp` binary, started as a process: write JSON events, wait for JSON lines.
final class AppProcess: Sendable {
    /// What the test runner's folder holds: `microapp` and the plugin libraries `swift test` built.
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent()
    static let executable = buildDirectory.appendingPathComponent("microapp").path
    /// How a fix says the command, as it can be typed: this `microapp` is not on PATH, so its full path.
    static let typed = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
    /// How long a wait for an app's output lasts before the test fails: a guard against a hang, not a measure (speed
    /// is the benchmarks'). 30 s was too short on this two-core machine while other builds and test runs shared it
    /// (load averages of 50 to 80): apps that pass alone in seconds took longer than that to draw their first frame,
    /// and a full run failed a dozen journeys at once. A real hang still fails, later.
    static let patience: Duration = .seconds(120)

    /// What the reader threads collect; a class so the threads share it with the process object.
    private final class Output: Sendable {
        let lines = Mutex<[String]>([])
        let errors = Mutex<String>("")
        let readerDone = Mutex(false)
    }

    private let process: Process
    private let input: FileHandle
    private let output = Output()

    /// Starts `microapp` (or another host built on MicroappTool) with `arguments` (never rebuilding: `swift test`
    /// holds SwiftPM's build lock).
    init(_ arguments: [String], environment: [String: String] = [:], executable: String = AppProcess.executable) throws
    {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        // Each run of the demo gets its own data folder: a session persisted by one test must not sign in the next.
        // `--data` is the demo host's own option; another host has no such option (and no data of the demo's).
        let data =
            executable == AppProcess.executable && arguments.first == "run" && !arguments.contains("--data")
            ? ["--data", Self.freshDataDirectory()] : []
        process.arguments = arguments + data + ["--no-build"]
        process.environment = Scratch.childEnvironment(environment)
        let stdin = privatePipe()
        let stdout = privatePipe()
        let stderr = privatePipe()
        input = stdin.fileHandleForWriting
        try process.run(stdin: stdin, stdout: stdout, stderr: stderr)
        let standardOutput = stdout.fileHandleForReading
        let errorOutput = stderr.fileHandleForReading
        let collected = output
        Thread.detachNewThread {
            var buffer = Data()
            while case let chunk = standardOutput.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    collected.lines.withLock { $0.append(line) }
                }
            }
            collected.readerDone.withLock { $0 = true }
        }
        Thread.detachNewThread {
            while case let chunk = errorOutput.availableData, !chunk.isEmpty {
                collected.errors.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
    }

    /// The process id of the started `microapp`.
    var processID: Int32 { process.processIdentifier }

    /// A new empty folder for the app's data.
    static func freshDataDirectory() -> String {
        Scratch.folder("microapp-data").path
    }

    /// Sends one event line, e.g. `{"type":"tap","id":"submit"}`.
    func send(_ json: String) {
        input.write(Data((json + "\n").utf8))
    }

    /// Sends several events.
    func send(_ events: [[String: Any]]) throws {
        for event in events {
            send(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]), as: UTF8.self))
        }
    }

    /// Opens sign-in and signs in as Rick (the demo's account).
    func signInAsRick() throws {
        try send([
            ["type": "open", "url": "auth://sign-in"],
            ["type": "input", "id": "email", "text": "rick@example.com"],
            ["type": "input", "id": "password", "text": "portal-gun"],
            ["type": "tap", "id": "submit"],
        ])
    }

    /// From the sign-in choice, creates Summer Smith's account under `email` and submits it.
    func signUpAsSummer(_ email: String) throws {
        try send([
            ["type": "tap", "id": "sign-up"],
            ["type": "input", "id": "name", "text": "Summer Smith"],
            ["type": "input", "id": "email", "text": email],
            ["type": "input", "id": "password", "text": "shiny-and-new"],
            ["type": "input", "id": "confirm", "text": "shiny-and-new"],
            ["type": "tap", "id": "submit"],
        ])
    }

    /// Closes stdin (EOF ends the run) and waits for the exit code.
    func finish(timeout: Duration = AppProcess.patience / 2) async throws -> Int32 {
        try? input.close()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                let report = hangReport
                process.terminate()
                throw AppProcessError("microapp did not exit within \(timeout)\n\(report)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        while !output.readerDone.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        return process.terminationStatus
    }

    /// Every stdout line so far, decoded as JSON objects.
    var objects: [[String: Any]] {
        output.lines.withLock { $0 }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Every stdout line so far, as written.
    var lines: [String] { output.lines.withLock { $0 } }

    /// What the app wrote on stderr so far.
    var errorText: String { output.errors.withLock { $0 } }

    /// How many JSON lines were written so far: a mark to wait for what comes after it.
    var mark: Int { objects.count }

    /// The lines written after `mark`, decoded as JSON objects.
    func objects(since mark: Int) -> [[String: Any]] { Array(objects.dropFirst(mark)) }

    /// Waits for an output line of `type` (frame, notice, error) after line `mark` that satisfies `predicate`, and
    /// returns it.
    @discardableResult
    func waitFor(
        _ type: String, since mark: Int = 0, timeout: Duration = AppProcess.patience,
        where predicate: ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = objects(since: mark).first(where: { $0["type"] as? String == type && predicate($0) }) {
                return match
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AppProcessError("no \(type) line as expected within \(timeout)\n\(hangReport)")
    }

    /// Waits for a frame on `route` (and, if given, a condition on it), returning it.
    @discardableResult
    func waitForFrame(
        route: String, timeout: Duration = AppProcess.patience, where predicate: ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        try await waitFor("frame", timeout: timeout) { $0["route"] as? String == route && predicate($0) }
    }

    /// Waits until `condition` holds for the output so far.
    func waitUntil(timeout: Duration = AppProcess.patience, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw AppProcessError("the expected output did not come within \(timeout)\n\(hangReport)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Every stdout line so far, as written.
    var rawLines: [String] { output.lines.withLock { $0 } }

    /// The last frame written.
    var lastFrame: [String: Any]? { objects.last { $0["type"] as? String == "frame" } }

    private var transcript: String {
        "stdout:\n" + output.lines.withLock { $0.suffix(8).joined(separator: "\n") } + "\nstderr:\n" + errorText
    }

    /// The transcript of an app that stopped answering, with how many lines it wrote and what each process of its
    /// tree is doing (taken before the process is stopped).
    private var hangReport: String {
        let count = output.lines.withLock { $0.count }
        let state = process.isRunning ? HangDiagnosis.tree(process.processIdentifier) : "it has ended"
        // Every notice and error, wherever it came: one from the start (a feature refused) explains a later silence.
        let said = output.lines.withLock { $0.filter { !$0.hasPrefix(#"{"type":"frame""#) } }
        return "(\(count) stdout lines in all, the last 8 shown)\n" + transcript + "\nevery line but frames:\n"
            + said.joined(separator: "\n") + "\nwhat the app's processes are doing:\n" + state
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A failed expectation about the app's output, with the transcript.
struct AppProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Text found anywhere in a frame's screen (titles, texts, labels, list rows).
func screenText(_ frame: [String: Any]) -> String {
    guard let screen = frame["screen"],
        let data = try? JSONSerialization.data(withJSONObject: screen, options: [.sortedKeys])
    else { return "" }
    return String(decoding: data, as: UTF8.self)
}

/// Runs `microapp` to completion with `input` on stdin (none by default, all of it written at once) and returns
/// exit code, stdout and stderr (waiting off the pool). `environment` is added to the scratch environment.
func runToEnd(
    _ arguments: [String], executable: String = AppProcess.executable, in directory: URL? = nil, input: String? = nil,
    environment: [String: String] = [:]
) async throws -> (status: Int32, out: String, err: String) {
    try await offThePool {
        try runToEndBlocking(arguments, executable: executable, in: directory, input: input, environment: environment)
    }
}

/// Runs blocking work (waiting for a process) on a thread of its own and awaits it (`BlockingWork.run`): blocking
/// the few threads of Swift's cooperative pool would stall every other test in the run.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingWork.run(work)
}

private func runToEndBlocking(
    _ arguments: [String], executable: String, in directory: URL?, input: String?, environment: [String: String]
) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = Scratch.childEnvironment(environment)
    if let directory { process.currentDirectoryURL = directory }
    let stdout = privatePipe()
    let stderr = privatePipe()
    let stdin = privatePipe()
    try process.run(stdin: input == nil ? FileHandle.nullDevice : stdin, stdout: stdout, stderr: stderr)
    if let input {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }
    // Both pipes drained at once: a child that fills one while the other is read first would wait forever.
    let err = Mutex(Data())
    let errRead = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        let data = stderr.fileHandleForReading.readDataToEndOfFile()
        err.withLock { $0 = data }
        errRead.signal()
    }
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    errRead.wait()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: out, as: UTF8.self),
        String(decoding: err.withLock { $0 }, as: UTF8.self)
    )
}

/// Copies this build's `microapp` and `libMicroappSDK.so` into `folder` (a host installed there), off the pool, with
/// `cp` (see `copyExecutable`): the copy a test wrote itself failed to start with "Text file busy" in a full run.
func copyHost(to folder: URL) async throws {
    try await offThePool {
        for name in ["microapp", "libMicroappSDK.so"] {
            try copyExecutable(
                AppProcess.buildDirectory.appendingPathComponent(name).path,
                to: folder.appendingPathComponent(name).path)
        }
    }
}

/// Copies an executable (a `microapp` for a repository of its own) with `cp` in a child process. A copy written from
/// this process would leave the file open for writing in any child another test forks meanwhile, and exec'ing it
/// then fails with ETXTBSY ("Text file busy") until that child execs.
func copyExecutable(_ source: String, to destination: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/cp")
    process.arguments = [source, destination]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw AppProcessError("cp \(source) \(destination) failed (exit \(process.terminationStatus))")
    }
}

/// A pipe whose two ends close in every program another test starts: made with O_CLOEXEC at once (`pipe2`). Foundation's
/// `Pipe` is made without it, and setting FD_CLOEXEC afterwards leaves a moment in which a child another test starts
/// inherits both ends: one that held an app's stdout read end while the app answered kept that write from failing,
/// and the app, whose reader had gone, waited for input forever (the closed-output test hung twice in full runs).
final class PrivatePipe: @unchecked Sendable {
    /// The end this process reads (the child writes the other).
    let fileHandleForReading: FileHandle
    /// The end this process writes (the child reads the other).
    let fileHandleForWriting: FileHandle

    init() {
        var ends: [Int32] = [-1, -1]
        precondition(microapp_pipe_cloexec(&ends) == 0, "pipe2 failed: \(errno)")
        fileHandleForReading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        fileHandleForWriting = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }
}

/// A new `PrivatePipe`.
func privatePipe() -> PrivatePipe { PrivatePipe() }

extension Process {
    /// Runs with `stdin`, `stdout` and `stderr` as the child's standard streams (each the pipe's far end, or a file
    /// handle), then closes this process's copy of each far end, as Foundation does for its own `Pipe`s, so that the
    /// reader sees EOF when the child ends and the child sees EOF when the writer closes.
    func run(stdin: Any?, stdout: Any?, stderr: Any?) throws {
        var farEnds: [FileHandle] = []
        if let pipe = stdin as? PrivatePipe {
            standardInput = pipe.fileHandleForReading
            farEnds.append(pipe.fileHandleForReading)
        } else if let stdin {
            standardInput = stdin
        }
        for (stream, set) in [(stdout, { self.standardOutput = $0 }), (stderr, { self.standardError = $0 })]
            as [(Any?, (Any) -> Void)]
        {
            if let pipe = stream as? PrivatePipe {
                set(pipe.fileHandleForWriting)
                farEnds.append(pipe.fileHandleForWriting)
            } else if let stream {
                set(stream)
            }
        }
        try run()
        for end in farEnds { try? end.close() }
    }
}
