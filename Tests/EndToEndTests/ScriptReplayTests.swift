import Foundation
import Synchronization
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("End to end: a script piped in at once replays the same way, and the output's reader may leave")
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

/// The first process whose parent is `parent`, from /proc.
func childProcess(of parent: Int32) -> Int32? { HangDiagnosis.children(of: parent).first }

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
    stdin.fileHandleForWriting.write(Data(#"{"type":"tap","id":"sign-in"}"#.utf8 + [0x0A]))
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
    let errText = String(decoding: err, as: UTF8.self) + (held.isEmpty ? "" : "\nstill holding stdout's pipe: " + held)
    return (firstLine, process.terminationStatus, errText)
}

/// The kernel's name of the pipe `descriptor` is an end of ("pipe:[inode]").
private func pipeName(of descriptor: Int32) -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? "?"
}
