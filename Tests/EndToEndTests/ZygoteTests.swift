import Foundation
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The zygote of the real `microapp` binary: a template process that forks children running a command line.
@Suite("End to end: the zygote forks children that run a command line of the executable", .promptResumes)
struct ZygoteTests {
    /// Stops `zygote` on a thread of its own (it waits for the template to end), leaving the cooperative pool free.
    static func stop(_ zygote: Zygote) { Thread.detachNewThread { zygote.stop() } }

    static func startZygote() throws -> Zygote {
        try Zygote.start(
            executable: AppProcess.executable, environment: ChildLaunch.environment(.process, backtrace: "enable=no"))
    }

    /// A pipe whose ends are close-on-exec; the caller closes both.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    static func readAll(_ descriptor: Int32) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        close(descriptor)
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "a forked child runs the command line it was given, on the streams it was given, and its exit code reaches the host"
    )
    func forkedChildRunsCommand() async throws {
        let zygote = try await offThePool { try Self.startZygote() }
        defer { Self.stop(zygote) }
        let output = try Self.pipe()
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let child = try await offThePool {
            try zygote.fork(["--version"], input: null, output: output.write, error: null)
        }
        close(output.write)
        let text = try await offThePool { Self.readAll(output.read) }
        let termination = try await offThePool { child.wait(timeout: .seconds(60)) }
        #expect(text.contains("microapp"))
        #expect(termination == .exited(0))

        let failing = try await offThePool {
            try zygote.fork(["probe", "/nonexistent/libNothing.so"], input: null, output: null, error: null)
        }
        #expect(try await offThePool { failing.wait(timeout: .seconds(60)) } == .exited(2))
    }

    @Test("a child killed by a signal is reported as signalled, and the zygote goes on forking others")
    func signalledChild() async throws {
        let zygote = try await offThePool { try Self.startZygote() }
        defer { Self.stop(zygote) }
        let input = try Self.pipe()  // the standby probe waits on its input, which stays open until it is killed
        defer {
            close(input.read)
            close(input.write)
        }
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let waiting = try await offThePool {
            try zygote.fork(["probe", "--standby"], input: input.read, output: null, error: null)
        }
        #expect(waiting.pid > 0)
        waiting.signal(SIGKILL)
        #expect(try await offThePool { waiting.wait(timeout: .seconds(60)) } == .signalled(SIGKILL))

        let output = try Self.pipe()
        let next = try await offThePool {
            try zygote.fork(["--version"], input: null, output: output.write, error: null)
        }
        close(output.write)
        #expect(try await offThePool { Self.readAll(output.read) }.contains("microapp"))
        #expect(try await offThePool { next.wait(timeout: .seconds(60)) } == .exited(0))
    }

    @Test("a signal to a child that already ended reaches nobody, not the process whose pidfd took its number")
    func signalAfterEndReachesNobody() async throws {
        let zygote = try await offThePool { try Self.startZygote() }
        defer { Self.stop(zygote) }
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let input = try Self.pipe()
        defer { close(input.read) }
        let waiting = try await offThePool {
            try zygote.fork(["probe", "--standby"], input: input.read, output: null, error: null)
        }
        // The ended child's pidfd number made to name the waiting child, as a reused number would. F_DUPFD takes the
        // lowest free number from the ended one's up, so it never replaces a descriptor another test opened in the
        // meantime (dup2 would); when another took the number first, a new child is tried.
        var reused = false
        for _ in 0..<20 where !reused {
            let ended = try await offThePool { try zygote.fork(["--version"], input: null, output: null, error: null) }
            #expect(try await offThePool { ended.wait(timeout: .seconds(60)) } == .exited(0))
            let copy = fcntl(waiting.pidDescriptor, F_DUPFD_CLOEXEC, ended.pidDescriptor)
            reused = copy == ended.pidDescriptor
            if reused { ended.signal(SIGKILL) }
            if copy >= 0 { close(copy) }
        }
        #expect(reused, "no ended child's pidfd number was free to reuse in 20 tries")
        close(input.write)  // the standby probe ends on its own at the end of its input
        #expect(try await offThePool { waiting.wait(timeout: .seconds(60)) } == .exited(0))
    }

    @Test("without the internal marker `microapp zygote` is not a command")
    func zygoteIsInternal() async throws {
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "MICROAPP_INTERNAL" }
        let outcome = try await offThePool {
            try ChildProcess([AppProcess.executable, "zygote"], environment: environment).wait(timeout: .seconds(60))
        }
        #expect(outcome.termination == .exited(1))
    }
}
