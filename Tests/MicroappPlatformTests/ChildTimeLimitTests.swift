import Foundation
import Synchronization
import TestScratch
import Testing

@testable import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

@Suite("A child's time limit counts the time it could run, not the time a busy machine kept it waiting")
struct ChildTimeLimitTests {
    /// `script` run by the shell on the first CPU alone (taskset, from util-linux, execs it: the pid is the shell's).
    private static func onFirstCPU(_ script: String) -> [String] {
        ["/usr/bin/taskset", "-c", "0", "/bin/sh", "-c", script]
    }

    /// A limit of 5 s from `start`, whose child has waited `waited` for a CPU.
    private static func limit(waited: Duration?, start: ContinuousClock.Instant) -> ChildTimeLimit {
        ChildTimeLimit(.seconds(5), started: start) { waited }
    }

    @Test(
        "a child that waited for no CPU meets the limit as it is: a hang on an idle machine is cut at 5 s", .offThePool)
    func idleMachine() {
        let start = ContinuousClock.now
        #expect(Self.limit(waited: .zero, start: start).remaining(at: start + .seconds(3)) == .seconds(2))
        #expect(Self.limit(waited: .zero, start: start).remaining(at: start + .seconds(5)) == .zero)
        #expect(Self.limit(waited: nil, start: start).remaining(at: start + .seconds(5)) == .zero)
    }

    @Test("the time it waited on the run queue is given back, up to four times the limit in wall time", .offThePool)
    func busyMachine() {
        let start = ContinuousClock.now
        #expect(Self.limit(waited: .seconds(3), start: start).remaining(at: start + .seconds(5)) == .seconds(3))
        // A wait read as longer than the time that passed (threads waiting side by side) counts as the time passed.
        #expect(Self.limit(waited: .seconds(9), start: start).remaining(at: start + .seconds(6)) == .seconds(5))
        #expect(Self.limit(waited: .seconds(19), start: start).remaining(at: start + .seconds(19)) == .seconds(1))
        #expect(Self.limit(waited: .seconds(20), start: start).remaining(at: start + .seconds(20)) == .zero)
    }

    @Test(
        "a child sharing its CPU with a spinning process is read waiting on the run queue and has time left past its limit; one asleep has none"
    )
    func realChildren() async throws {
        // Beside a spinning process on one CPU the child waits on the run queue about half the time (more if the
        // machine is busier), so 200 ms after the start it has had about 100 ms of its 150 ms. Asleep, it waits for
        // no CPU and its limit is spent. (The wait is read after at least 200 ms and counted up to 200 ms; the
        // sleeper's is counted from when it is asleep: its own start, on a loaded machine, waited for a CPU too.)
        // Asleep for longer than any wait of the test (it is killed at the end): a suite that keeps this test's task
        // from a thread for seconds must not find it already exited.
        let asleep = try ChildProcess(["/bin/sleep", "600"], output: .null, error: .null)
        defer { Self.end(asleep) }
        try await Self.untilAsleep(asleep.pid)
        // The spinning pair start only now and end as soon as the spinning one's wait is read: each second they spin
        // is a second of CPU the rest of the test run goes without (in a full run, waiting for this task to be
        // resumed, they spun more than a second each).
        var spinners: [ChildProcess] = []
        defer { spinners.forEach(Self.end) }
        spinners.append(try ChildProcess(Self.onFirstCPU("while :; do :; done"), output: .null, error: .null))
        let spinning = try ChildProcess(Self.onFirstCPU("while :; do :; done"), output: .null, error: .null)
        spinners.append(spinning)
        let started = ContinuousClock.now
        let before = try #require(RunQueueWait.total(of: spinning.pid))
        let asleepBefore = try #require(RunQueueWait.total(of: asleep.pid))
        try await Task.sleep(for: .milliseconds(200))
        let waited = try #require(RunQueueWait.total(of: spinning.pid)) - before
        #expect(waited > .milliseconds(30), "waited \(waited) in 200 ms beside a spinning process")
        let checked = started + .milliseconds(200)
        #expect(ChildTimeLimit(.milliseconds(150), pid: spinning.pid, started: started).remaining(at: checked) > .zero)
        spinners.forEach(Self.end)
        spinners = []
        let sleeper = ChildTimeLimit(.milliseconds(150), started: started) {
            RunQueueWait.total(of: asleep.pid).map { $0 - asleepBefore }
        }
        #expect(sleeper.remaining(at: checked) == .zero)
        #expect(RunQueueWait.total(of: -1) == nil)
    }

    /// Kills `process` and reaps it (once: its pidfd is closed by then).
    private static func end(_ process: ChildProcess) {
        process.signal(SIGKILL)
        _ = process.wait()
    }

    /// Waits (at most 10 s) until `pid` is asleep (state S in /proc/PID/stat).
    private static func untilAsleep(_ pid: pid_t) async throws {
        for _ in 0..<1000 {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if stat.range(of: ") ", options: .backwards).map({ stat[$0.upperBound...].hasPrefix("S") }) == true {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("process \(pid) never went to sleep")
    }

    @Test("ChildProcess.wait cuts a child asleep past its timeout at about the timeout", .offThePool)
    func asleepIsCut() throws {
        let asleep = try ChildProcess(["/bin/sleep", "600"], output: .null, error: .null)
        let slept = ContinuousClock.now
        #expect(asleep.wait(timeout: .milliseconds(200)).termination == .timedOut)
        #expect(ContinuousClock.now - slept < .seconds(3))
    }
}
