import Foundation
import MicroappCore
import MicroappIsolation
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("How an isolated feature's child ended")
struct FeatureExitTests {
    /// The cause a real child's end is classified as, with the OOM counter read around it.
    private func cause(of script: String) async throws -> FeatureStop.Cause {
        let before = OutOfMemoryCount.read()
        // The test runner may ignore some signals, and children inherit that: put the ones used here back.
        let child = try ChildProcess(["/bin/sh", "-c", script], defaultSignals: [SIGILL, SIGSEGV])
        let outcome = await BlockingWork.run { child.wait() }
        let after = OutOfMemoryCount.read()
        let kills = before.flatMap { before in after.map { (before: before, after: $0) } }
        return FeatureExit.cause(of: outcome.termination, outOfMemoryKills: kills)
    }

    @Test("a segfault and an illegal instruction are crashes by signal, named in the reason")
    func faultsAreCrashes() async throws {
        let segfault = try await cause(of: "kill -SEGV $$")
        #expect(segfault == .crashed(signal: SIGSEGV))
        #expect(FeatureStop(library: "libX.so", cause: segfault).reason == "it crashed (signal 11, SIGSEGV)")
        // (`kill -ABRT $$` is not used: a shell started from this test runner survives its own SIGABRT.)
        #expect(try await cause(of: "kill -ILL $$") == .crashed(signal: SIGILL))
        #expect(FeatureExit.cause(of: .signalled(SIGABRT)) == .crashed(signal: SIGABRT))
    }

    @Test("exit(0) and exit(3) are exits with their status, not crashes")
    func exitsKeepTheirStatus() async throws {
        #expect(try await cause(of: "exit 0") == .exited(status: 0))
        let three = try await cause(of: "exit 3")
        #expect(three == .exited(status: 3))
        #expect(FeatureStop(library: "libX.so", cause: three).code == "feature-exited")
    }

    @Test("SIGKILL with no out-of-memory kill counted is 'killed', never a guess at memory")
    func sigkillIsKilled() async throws {
        let killed = try await cause(of: "kill -KILL $$")
        #expect(killed == .killed(signal: SIGKILL))
        let stop = FeatureStop(library: "libX.so", cause: killed)
        #expect(stop.code == "feature-killed")
        #expect(!stop.reason.contains("memory"))
    }

    @Test("SIGKILL while the kernel's count of out-of-memory kills went up is reported as out of memory", .offThePool)
    func sigkillWithOOMCountIsOutOfMemory() {
        let cause = FeatureExit.cause(of: .signalled(SIGKILL), outOfMemoryKills: (before: 4, after: 5))
        #expect(cause == .outOfMemory)
        #expect(FeatureStop(library: "libX.so", cause: cause).reason.contains("out of memory"))
        #expect(FeatureExit.cause(of: .signalled(SIGKILL), outOfMemoryKills: (4, 4)) == .killed(signal: SIGKILL))
    }

    @Test("the out-of-memory count is read from this machine's cgroup or /proc/vmstat", .offThePool)
    func outOfMemoryCountIsReadable() {
        #expect(OutOfMemoryCount.read() != nil)
    }
}
