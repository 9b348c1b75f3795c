import Foundation
import TestScratch
import Testing

/// The hang diagnosis never turns a failure into a hang: each tool it runs is killed past its limit.
@Suite(.promptResumes) struct HangDiagnosisTests {
    @Test("a diagnostic tool that never ends is killed at its limit; the diagnosis returns what it wrote and says so")
    func toolPastItsLimit() async throws {
        // The target, stopped as a tracer that was killed mid-attach would leave it.
        let target = Process()
        target.executableURL = URL(fileURLWithPath: "/bin/sleep")
        target.arguments = ["60"]
        // Not on the test process's stdout and stderr: a child left holding them keeps `swift test` (which reads
        // them to their end) waiting after the last test, as this one once did for 30 s.
        target.standardOutput = FileHandle.nullDevice
        target.standardError = FileHandle.nullDevice
        try target.run()
        // SIGKILL, and reaped: a SIGTERM (`terminate()`) left it sleeping out its 60 s in a full run.
        defer {
            kill(target.processIdentifier, SIGKILL)
            target.waitUntilExit()
        }
        #expect(kill(target.processIdentifier, SIGSTOP) == 0)
        // A "gdb" that writes one stack line, then ignores SIGTERM and sleeps longer than the test may take.
        let tool = ["/bin/sh", "-c", "echo 'Thread 1 (stuck)'; trap '' TERM; exec sleep 60", "gdb"]
        // Timed inside the blocking thread: the wait for one (they are few, and busy in a full run at load 50) is not
        // the diagnosis's (34 s of a run once, the diagnosis itself a few).
        let (stacks, took) = try await offThePool {
            let started = ContinuousClock.now
            let stacks = HangDiagnosis.gdbStacks(
                // Long enough for the shell to start and write its line on a loaded machine (at load 30, 0.2 s was
                // not: it was killed before it wrote), far below its own 60 s.
                of: target.processIdentifier, tool: tool, limit: .seconds(3), grace: .milliseconds(200))
            return (stacks, ContinuousClock.now - started)
        }
        #expect(stacks?.contains("Thread 1 (stuck)") == true)
        #expect(stacks?.contains("gdb did not finish in \(Duration.seconds(3)) and was killed") == true)
        // Its limit, then SIGTERM's grace (ignored), then SIGKILL: far below the tool's own 60 s, even under load.
        #expect(took < .seconds(30))
        // The stopped target was sent SIGCONT (the kernel wakes it as the signal is sent): the app goes on after a
        // diagnosis cut short.
        let stat = try String(contentsOfFile: "/proc/\(target.processIdentifier)/stat", encoding: .utf8)
        let state = stat.split(separator: ")").last?.dropFirst().prefix(1)
        #expect(state != "T")
    }

    @Test("a tool that ends within its limit is read to its end and not cut")
    func toolWithinItsLimit() async throws {
        let run = try await offThePool {
            HangDiagnosis.bounded("/bin/sh", ["-c", "echo one; echo two >&2"], limit: .seconds(60))
        }
        #expect(run?.cut == false)
        #expect(run?.output.contains("one\n") == true && run?.output.contains("two\n") == true)
    }
}
