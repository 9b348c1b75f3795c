import Foundation
import MicroappCore
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Child processes")
struct ChildProcessTests {
    /// Runs `script` with `/bin/sh -c` off the cooperative pool.
    static func shell(
        _ script: String, timeout: Duration? = nil, error: ChildProcess.Stream = .capture, directory: String? = nil
    ) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess(["/bin/sh", "-c", script], directory: directory, error: error)
        return await BlockingWork.run { child.wait(timeout: timeout) }
    }

    @Test("a child's exit code and both of its outputs come back, each on its own")
    func exitAndOutputs() async throws {
        let outcome = try await Self.shell("echo out; echo err >&2; exit 3")
        #expect(outcome.termination == .exited(3))
        #expect(outcome.text == "out\n")
        #expect(String(decoding: outcome.error, as: UTF8.self) == "err\n")
    }

    @Test("standard error can join standard output, in the order written, and the child runs in the folder given")
    func mergedAndDirectory() async throws {
        let outcome = try await Self.shell("pwd; echo err >&2", error: .output, directory: "/proc")
        #expect(outcome.text == "/proc\nerr\n")
        #expect(outcome.error.isEmpty)
    }

    @Test("a descriptor this process left inheritable does not reach the child: only 0, 1 and 2 do")
    func onlyStandardDescriptorsReachTheChild() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // plain pipe(2): inheritable, as Foundation's pipes are
        defer { ends.forEach { _ = close($0) } }
        let outcome = try await Self.shell(
            "for fd in 0 1 2 \(ends[0]) \(ends[1]); do [ -e /proc/$$/fd/$fd ] && echo $fd; done; true")
        #expect(outcome.text == "0\n1\n2\n")
    }

    @Test("a child ended by a signal says which signal")
    func signalled() async throws {
        let outcome = try await Self.shell("kill -KILL $$")
        #expect(outcome.termination == .signalled(SIGKILL))
        #expect(outcome.termination.waitStatus == SIGKILL)
    }

    @Test("a child that fills both pipes is drained from both at once and finishes")
    func largeOutputs() async throws {
        let outcome = try await Self.shell("head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2")
        #expect(outcome.termination == .exited(0))
        #expect(outcome.output.count == 1_000_000)
        #expect(outcome.error.count == 1_000_000)
    }

    @Test("a child still running at its time limit is killed and reported as timed out")
    func timeLimit() async throws {
        // `exec` leaves no shell between: the sleeping process is the child, and it never ends by itself.
        let outcome = try await Self.shell("exec sleep 1000", timeout: .milliseconds(100))
        #expect(outcome.termination == .timedOut)
    }

    @Test("a grandchild that keeps the output pipe open does not keep the wait going after the child ended")
    func grandchildHoldsPipe() async throws {
        let outcome = try await Self.shell("sleep 1000 & echo $!")
        #expect(outcome.termination == .exited(0))
        let grandchild = try #require(pid_t(outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(grandchild, SIGKILL)
    }

    @Test(
        "a program that cannot be started is a system-call error naming the call, the program and the reason",
        .offThePool)
    func cannotStart() throws {
        let error = #expect(throws: SystemCallError.self) {
            _ = try ChildProcess(["/nonexistent/program"])
        }
        #expect(error == SystemCallError(call: "posix_spawn", path: "/nonexistent/program", errno: ENOENT))
        #expect(error?.problem.text.contains("posix_spawn failed: No such file or directory") == true)
        #expect(error?.problem.fix.contains("exists") == true)
    }
}
