import CPlatform
import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The one way the engine, the CLI and builds start a program: `posix_spawn` (not Foundation's `Process`, which
/// changes signal handling and waits on descriptors that grandchildren keep open), captured output read from both
/// pipes together (a child that fills one while the other is read never stalls), its end seen through a pidfd with
/// `poll` (a time limit without polling loops), and how it ended as a value.
///
/// Start it, then call `wait` exactly once (it reaps the child). `wait` blocks: call it off the cooperative pool
/// (`BlockingWork.run`).
public struct ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable, Equatable {
        /// `/dev/null`.
        case null
        /// This process's own stream.
        case inherit
        /// A file: read for input; created or truncated (mode 0600) for output.
        case file(String)
        /// A descriptor of this process, duplicated onto the stream (the caller keeps and closes its own).
        case descriptor(Int32)
        /// A pipe `wait` reads into the outcome (output streams only).
        case capture
        /// The same place as standard output (standard error only).
        case output
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this code.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
        /// It was still running at the time limit and was killed.
        case timedOut

        /// The exit code, or the number of the signal that ended it (as Foundation's `terminationStatus`).
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): signal
            case .timedOut: SIGKILL
            }
        }

        /// How a child ended, from the status `waitpid` reported for it.
        public init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal != 0 ? .signalled(signal) : .exited((status >> 8) & 0xff)
        }

        /// The status as `waitpid` and shells report it: the exit code shifted left by 8, or the signal number.
        public var waitStatus: Int32 {
            switch self {
            case .exited(let code): code << 8
            case .signalled(let signal): signal
            case .timedOut: SIGKILL
            }
        }
    }

    /// What `wait` saw: how the child ended and what it wrote to the captured streams.
    public struct Outcome: Sendable {
        /// How it ended.
        public var termination: Termination
        /// Its captured standard output (with standard error when that was `.output`).
        public var output: Data
        /// Its captured standard error.
        public var error: Data

        /// The captured standard output as text.
        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// The child's process id (not yet reaped until `wait` returns).
    public let pid: pid_t
    private let pidDescriptor: Int32
    private let reaping = ReapingGuard()
    /// The child's pidfd, readable once it ended (until `wait` closed it).
    var endDescriptor: Int32 { pidDescriptor }
    private let outputPipe: Int32
    private let errorPipe: Int32

    /// Starts `arguments[0]` (searched on `PATH` when it has no slash) with `arguments`, in `directory`, with
    /// `environment` (this process's own when nil) and `defaultSignals` set back to their default action.
    public init(
        _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Stream = .null, output: Stream = .capture, error: Stream = .capture, defaultSignals: [Int32] = []
    ) throws(SystemCallError) {
        let program = arguments.first ?? ""
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipes: [Int32] = []  // the child's ends, closed here once it started
        defer { pipes.forEach { _ = close($0) } }
        var readEnds: [Int32] = []
        func readEnd(for stream: Stream, onto target: Int32) throws(SystemCallError) -> Int32 {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .inherit: break
            case .file(let path):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .capture:
                // Close-on-exec: no other child started meanwhile inherits the read end and keeps it open.
                var ends: [Int32] = [-1, -1]
                try SystemCall.run("pipe2") { microapp_pipe_cloexec(&ends) }
                readEnds.append(ends[0])
                pipes.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                return ends[0]
            case .output: posix_spawn_file_actions_adddup2(&actions, 1, target)
            }
            return -1
        }
        do {
            _ = try readEnd(for: input == .capture || input == .output ? .null : input, onto: 0)
            outputPipe = try readEnd(for: output == .output ? .inherit : output, onto: 1)
            errorPipe = try readEnd(for: error, onto: 2)
            // Only 0, 1 and 2 reach the child: a descriptor some other code left inheritable (Foundation's pipes
            // are) would otherwise stay open in it, and the process at the pipe's other end would never see its end.
            try SystemCall.status("posix_spawn_file_actions_addclosefrom", path: program) {
                microapp_spawn_add_close_from(&actions, 3)
            }
            if let directory {
                try SystemCall.status("posix_spawn_file_actions_addchdir", path: directory) {
                    microapp_spawn_add_chdir(&actions, directory)
                }
            }
        } catch {
            readEnds.forEach { _ = close($0) }
            throw error
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if !defaultSignals.isEmpty {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in defaultSignals { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        }
        let argv = arguments.map { strdup($0) } + [nil]
        // Nil: the child inherits this process's environment as the kernel holds it (`environ`).
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid = pid_t()
        do {
            try SystemCall.status("posix_spawn", path: program) {
                func spawn(_ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
                    program.contains("/")
                        ? posix_spawn(&pid, program, &actions, &attributes, argv, envp)
                        : posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
                }
                return envp.map { $0.withUnsafeBufferPointer { spawn($0.baseAddress) } } ?? spawn(environ)
            }
        } catch {
            readEnds.forEach { _ = close($0) }
            throw error
        }
        self.pid = pid
        do {
            pidDescriptor = try SystemCall.run("pidfd_open") { microapp_pidfd_open(pid) }
        } catch {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = try? SystemCall.run("waitpid") { waitpid(pid, &status, 0) }
            readEnds.forEach { _ = close($0) }
            throw error
        }
    }

    /// Sends the child `signal` until `wait` reaped it; after that, nothing (its pid may be another process's).
    public func signal(_ signal: Int32 = SIGKILL) { reaping.unlessReaped { Glibc.kill(pid, signal) } }

    /// Reads the captured streams until the child ends or `timeout` passes (then kills it), copying what it writes to
    /// `echo` as it comes; reaps it and answers how it ended. Output that a grandchild writes after the child ended
    /// is not waited for. The timeout counts the time the child could run (`ChildTimeLimit`): a child kept waiting for
    /// a CPU by a busy machine gets that time back.
    public func wait(timeout: Duration? = nil, echo: Int32? = nil) -> Outcome {
        var open = [outputPipe, errorPipe].filter { $0 >= 0 }
        var captured: [Int32: Data] = [:]
        let limit = timeout.map { ChildTimeLimit($0, pid: pid) }
        var deadline = timeout.map { ContinuousClock.now + $0 }
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func read(_ descriptor: Int32) -> Bool {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { return true }
            guard count > 0 else { return false }
            captured[descriptor, default: Data()].append(contentsOf: buffer[..<count])
            if let echo { buffer.withUnsafeBytes { _ = Glibc.write(echo, $0.baseAddress, count) } }
            return true
        }
        poll: while true {
            var descriptors = (open + [pidDescriptor]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var milliseconds: Int32 = -1
            if let current = deadline {
                var left = current - .now
                if left <= .zero, let limit {
                    // At the deadline, the time the child waited for a CPU is given back (the limit says how much).
                    left = limit.remaining()
                    deadline = .now + left
                }
                guard left > .zero else {
                    signal(SIGKILL)
                    timedOut = true
                    break poll
                }
                milliseconds = Int32(clamping: left.wholeMilliseconds + 1)
            }
            let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }  // the deadline is checked above
            for entry in descriptors where entry.revents != 0 && entry.fd != pidDescriptor {
                if !read(entry.fd) {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
            if descriptors.last.map({ $0.revents != 0 }) == true { break poll }
        }
        // What the child left in the pipes, without waiting for a grandchild that holds them open.
        for descriptor in open {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            while read(descriptor) {}
            close(descriptor)
        }
        var status: Int32 = 0
        reaping.reap {
            _ = try? SystemCall.run("waitpid") { waitpid(pid, &status, 0) }
            close(pidDescriptor)
        }
        let termination: Termination = timedOut ? .timedOut : Termination(waitStatus: status)
        return Outcome(
            termination: termination, output: captured[outputPipe] ?? Data(), error: captured[errorPipe] ?? Data())
    }
}

/// Orders signals against the reaping of a child: a signal sent after the child was reaped (its pid, or its pidfd's
/// number, may belong to another process or file by then) is not sent. Another thread's `kill()` of a child that just
/// ended would otherwise reach whatever reused the number.
final class ReapingGuard: @unchecked Sendable {
    private let lock = NSLock()
    private var reaped = false

    /// Runs `send` unless the child was reaped.
    func unlessReaped(_ send: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if !reaped { send() }
    }

    /// Runs `reap` (waitpid, closing the pidfd) and marks the child reaped, with no signal in between.
    func reap(_ reap: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        reap()
        reaped = true
    }
}
