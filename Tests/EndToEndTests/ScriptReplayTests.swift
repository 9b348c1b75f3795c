import Foundation
import Synchronization
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("End to end: a script piped in at once replays the same way, and the output's reader may leave", .promptResumes)
struct ScriptReplayTests {
    static let password = "portal-gun"

    /// A whole journey written to stdin before the app starts: nothing in it waits for a frame.
    static let journey =
        [
            #"{"type":"tap","id":"sign-in"}"#,
            #"{"type":"input","id":"email","text":"rick@example.com"}"#,
            #"{"type":"input","id":"password","text":"\#(password)"}"#,
            #"{"type":"tap","id":"submit"}"#,
            #"{"type":"select","id":"characters","index":1}"#,
            #"{"type":"back"}"#,
            #"{"type":"open","url":"search://home"}"#,
            // Typed and picked at once: the select waits for the debounced search's answer (the screen is busy).
            #"{"type":"input","id":"query","text":"Morty Smith"}"#,
            #"{"type":"select","id":"results","index":0}"#,
            #"{"type":"back"}"#,
            #"{"type":"back"}"#,
            #"{"type":"open","url":"nowhere://at/all"}"#,
            #"{"type":"tap","id":"retry"}"#,
            #"{"type":"tap","id":"back"}"#,
            #"{"type":"select","id":"characters","index":2}"#,
        ].joined(separator: "\n") + "\n"

    @Test(
        "the same journey script gives the same lines on every run: sign-in and a debounced search settle before select, host screens answer"
    )
    func journeyReplaysIdentically() async throws {
        var runs: [[String]] = []
        for _ in 0..<3 {
            let data = AppProcess.freshDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: data) }
            let run = try await runToEnd(
                ["run", "--ui", "json", "--data", data, "--no-build"], input: Self.journey)
            #expect(run.status == 0, "\(run.err)")
            #expect(!run.out.contains(Self.password) && !run.err.contains(Self.password))
            runs.append(run.out.split(separator: "\n").map(String.init))
        }
        #expect(runs[1] == runs[0])
        #expect(runs[2] == runs[0])
        let lines = runs[0].compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let routes = lines.filter { $0["type"] as? String == "frame" }.compactMap { $0["route"] as? String }
        var visited: [String] = []
        for route in routes where visited.last != route { visited.append(route) }
        #expect(
            visited == [
                "auth://select", "auth://sign-in", "characters://list", "characters://detail/2", "characters://list",
                "search://home", "characters://detail/2", "search://home", "characters://list", "nowhere://at/all",
                "characters://list", "characters://detail/3",
            ])
        let errors = lines.filter { $0["type"] as? String == "error" }.compactMap { $0["code"] as? String }
        #expect(errors == ["not-found", "not-on-screen"])
    }

    @Test("a reader that closes the output after one line ends the app as a pipe does: exit 141, no crash report")
    func closedOutputIsANormalEnd() async throws {
        for supervision in [[], ["--no-supervise"]] {
            let data = AppProcess.freshDataDirectory()
            defer { try? FileManager.default.removeItem(atPath: data) }
            let end = try await offThePool {
                try readOneLineThenClose(["run", "--ui", "json", "--data", data, "--no-build"] + supervision)
            }
            #expect(end.firstLine.hasPrefix(#"{"type":"frame""#))
            // A shell reports both as 141: the supervisor exits with it, the app alone is ended by the signal.
            #expect(end.status == (supervision.isEmpty ? 141 : SIGPIPE), "\(end.err)")
            #expect(!end.err.contains("crash"), "\(end.err)")
        }
    }

    @Test("an app process killed with no crash report is reported without naming a report file")
    func crashWithoutReportNamesNoFile() async throws {
        let app = try AppProcess(["run", "--ui", "json"])
        try await app.waitForFrame(route: "auth://select")
        let child = try #require(childProcess(of: app.processID))
        kill(child, SIGKILL)
        #expect(try await app.finish() == 3)
        let named = app.errorText.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("/") }
        #expect(named.allSatisfy { FileManager.default.fileExists(atPath: String($0)) }, "\(app.errorText)")
        #expect(app.errorText.contains("ended by signal 9"), "\(app.errorText)")
        #expect(app.errorText.contains("no crash report was written"), "\(app.errorText)")
    }
}

/// The first process whose parent is `parent`, from /proc, other than the template a supervisor forked before its
/// `main` (its command line scrubbed to `zygote`): a supervisor's app process.
func childProcess(of parent: Int32) -> Int32? {
    HangDiagnosis.children(of: parent).first { !procText("/proc/\($0)/cmdline").hasPrefix("zygote") }
}

/// Starts `microapp`, reads its first stdout line, closes stdout's read end, then sends an event so the app
/// writes again; returns the first line, the exit status (or ending signal) and stderr.
private func readOneLineThenClose(_ arguments: [String]) throws -> (firstLine: String, status: Int32, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: AppProcess.executable)
    process.arguments = arguments
    process.environment = Scratch.childEnvironment()
    let (stdin, stdout, stderr) = (privatePipe(), privatePipe(), privatePipe())
    try process.run(stdin: stdin, stdout: stdout, stderr: stderr)
    var buffer = Data()
    while !buffer.contains(0x0A) {
        let chunk = stdout.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
    }
    let outputPipe = pipeName(of: stdout.fileHandleForReading.fileDescriptor)
    try stdout.fileHandleForReading.close()
    // The app's next write fails only once no process holds the pipe's read end. A child this test process forks holds
    // a copy of every descriptor of it, ours too, until it execs or ends (another test's fork without exec, or any
    // fork before its exec, delayed under load): a write the app makes then succeeds, and the app, its output not
    // closed as far as it can tell, waits for more input for ever — the watchdog's failure, once in eight loaded runs.
    // So the tap is sent once no copy of the read end is left anywhere.
    // The app may have written meanwhile of its own accord and ended already: then the tap finds its input closed.
    let copiesGone = waitUntilNoReader(of: outputPipe, within: .seconds(60))
    writeUnlessClosed(stdin.fileHandleForWriting.fileDescriptor, Data(#"{"type":"tap","id":"sign-in"}"#.utf8 + [0x0A]))
    // An app that never sees its output closed would keep this test (and the run) waiting on its stderr forever: it is
    // ended after a minute, and the test fails on the status. (It happened while pipes were inherited by other tests'
    // children: see PrivatePipe.)
    // Before ending it, the watchdog notes which processes still hold the output's pipe: a reader left anywhere keeps
    // the app from ever seeing the pipe closed, and that process is the cause to chase.
    let holders = Mutex("")
    let watchdog = DispatchWorkItem { [process] in
        guard process.isRunning else { return }
        holders.withLock {
            $0 = HangDiagnosis.processes(holding: outputPipe) + "\n" + HangDiagnosis.tree(process.processIdentifier)
        }
        process.terminate()
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
    defer { watchdog.cancel() }
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let firstLine = String(decoding: buffer.prefix { $0 != 0x0A }, as: UTF8.self)
    let held = holders.withLock { $0 }
    let errText =
        String(decoding: err, as: UTF8.self) + (held.isEmpty ? "" : "\nstill holding stdout's pipe: " + held)
        + (copiesGone ? "" : "\na copy of stdout's read end was still open after 60 s")
    return (firstLine, process.terminationStatus, errText)
}

/// Waits until no process has `pipe` ("pipe:[inode]") open for reading, checking /proc every 10 ms for at most
/// `limit`; false when one still did then. Blocks.
private func waitUntilNoReader(of pipe: String, within limit: Duration) -> Bool {
    let deadline = ContinuousClock.now + limit
    while HangDiagnosis.hasReader(of: pipe) {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}

/// Writes `data` to `descriptor`, or nothing when its reader has gone (EPIPE), without the SIGPIPE that would end this
/// whole test process: blocked on this thread for the write, and taken if it came. Call it on a thread of its own.
private func writeUnlessClosed(_ descriptor: Int32, _ data: Data) {
    var pipeSignal = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if written < 0 && errno == EPIPE {
        var now = timespec()
        _ = sigtimedwait(&pipeSignal, nil, &now)
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
}

/// The kernel's name of the pipe `descriptor` is an end of ("pipe:[inode]").
private func pipeName(of descriptor: Int32) -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? "?"
}
