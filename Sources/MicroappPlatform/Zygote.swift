import CPlatform
import Foundation
import MicroappCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A template process that starts isolated features by `fork` instead of starting the executable again: it has the
/// Swift runtime, Foundation and the SDK mapped already, so a child costs a fork (about a millisecond) instead of a
/// process start (about 15 ms), as Android's and Chrome's zygotes do.
///
/// The host starts one (`microapp zygote`, internal) early, or finds one forked before its `main` ran (`early()`);
/// each `fork` hands it the child's standard streams and a status pipe over a Unix socket, and it answers with a
/// pidfd of the new child. The child returns from `serve` with
/// its command line and runs it as if it had been started with it. The template forks only while it is
/// single-threaded (it checks), since a fork copies only the calling thread. When the host goes away the template
/// ends; its children end when the host's side of their own socket closes.
public final class Zygote: Sendable {
    /// The host's end of the control socket.
    private let control: Int32
    private let process: Template
    private let requests = NSLock()

    /// How the template process came to be, which says who reaps it.
    private enum Template: Sendable {
        /// Started as `microapp zygote`: this process's child.
        case started(ChildProcess)
        /// Forked before main by the process `forkedBy` (this one, or the supervisor this app process was forked from).
        case forkedEarly(pid: pid_t, forkedBy: pid_t)
    }

    private init(control: Int32, process: Template) {
        self.control = control
        self.process = process
    }

    /// The template forked before this process's `main` ran (by CPlatform's constructor, for a `run` that may start
    /// isolated features or probe a library: before any of the person's environment or arguments was read into
    /// memory, and scrubbed of what it inherited); nil when there is none or it was taken. A fork of it costs no
    /// second start of the runtime (the ~30 ms `start` pays); for isolated features it is ready when the app is, and
    /// for probes only it starts at the first request (`early_zygote.c`).
    public static func early() -> Zygote? {
        earlyTaken.withLock { taken -> Zygote? in
            let control = microapp_early_zygote_host()
            guard !taken, control >= 0 else { return nil }
            taken = true
            return Zygote(
                control: control,
                process: .forkedEarly(pid: microapp_early_zygote_pid(), forkedBy: microapp_early_zygote_forked_by()))
        }
    }

    private static let earlyTaken = Mutex(false)

    /// True in the template forked before main: `main` serves requests (`serve()`) and nothing else.
    public static var isEarlyTemplate: Bool { microapp_early_zygote_control() >= 0 }

    /// True in a template forked before main for a run's probes only (no isolated feature's child will be asked for).
    public static var servesProbesOnly: Bool { microapp_early_zygote_probes_only() != 0 }

    /// Starts the template: `executable zygote` with `environment` (it must carry `MICROAPP_INTERNAL=1`).
    public static func start(executable: String, environment: [String: String]) throws(SystemCallError) -> Zygote {
        var ends: [Int32] = [-1, -1]
        try SystemCall.status("socketpair") {
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        }
        defer { close(ends[1]) }
        do {
            let process = try ChildProcess(
                [executable, "zygote"], environment: environment, input: .descriptor(ends[1]), output: .null,
                error: .null)
            return Zygote(control: ends[0], process: .started(process))
        } catch {
            close(ends[0])
            throw error
        }
    }

    /// Forks a child from the template that runs `arguments` (a command line of the executable, without its name)
    /// with `input`, `output` and `error` as its standard streams (this process keeps and closes its own copies).
    /// Blocks for the template's answer (about a millisecond): call it off the main actor and the cooperative pool.
    public func fork(_ arguments: [String], input: Int32, output: Int32, error: Int32) throws(SystemCallError)
        -> ZygoteChild
    {
        var status: [Int32] = [-1, -1]
        try SystemCall.run("pipe2") { microapp_pipe_cloexec(&status) }
        defer { close(status[1]) }
        let request = (try? JSONEncoder().encode(arguments)) ?? Data("[]".utf8)
        requests.lock()
        defer { requests.unlock() }
        do throws(SystemCallError) {
            let descriptors = [input, output, error, status[1]]
            _ = try SystemCall.run("sendmsg") {
                request.withUnsafeBytes { bytes in
                    descriptors.withUnsafeBufferPointer {
                        microapp_send_with_fds(control, bytes.baseAddress, bytes.count, $0.baseAddress, 4)
                    }
                }
            }
            var answer = [UInt8](repeating: 0, count: 64)
            var pidDescriptor: Int32 = -1
            var received: Int32 = 0
            let count = try SystemCall.run("recvmsg") {
                answer.withUnsafeMutableBytes {
                    microapp_receive_with_fds(control, $0.baseAddress, $0.count, &pidDescriptor, 1, &received)
                }
            }
            // The template answers a pid and its pidfd, or the errno of the fork that failed.
            guard count == 8, received == 1 else {
                if received == 1 { close(pidDescriptor) }
                let failure = count >= 8 ? answer[4..<8].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : 0
                throw SystemCallError(call: "fork (zygote)", errno: failure != 0 ? failure : EPIPE)
            }
            let pid = answer[0..<4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
            return ZygoteChild(pid: pid, pidDescriptor: pidDescriptor, statusDescriptor: status[0])
        } catch {
            close(status[0])
            throw error
        }
    }

    /// Ends the template: closes its control socket and reaps it. Children it started go on. A template forked
    /// early by the supervisor this app process was forked from stays for the next app process the supervisor starts
    /// (it ends with the supervisor).
    public func stop() {
        close(control)
        switch process {
        case .started(let child): _ = child.wait(timeout: .seconds(5))
        case .forkedEarly(let pid, let forkedBy) where forkedBy == getpid():
            microapp_early_zygote_forget()
            ForkedProcess(pid: pid).reap(within: .seconds(5))
        case .forkedEarly: microapp_early_zygote_forget()
        }
    }

    // MARK: The template's side

    /// Runs the template loop on `control` (standard input of `microapp zygote`). Returns nil in the template when
    /// the host went away or the template cannot fork safely (`problem` says why), and the child's command line in
    /// each forked child, whose standard streams are then the ones the host passed. With `namespaces` (false where
    /// the template's environment says `MICROAPP_NAMESPACES=0`) a feature's child is forked into its namespaces.
    public static func serve(control: Int32 = 0, namespaces: Bool) -> (arguments: [String]?, problem: String?) {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        guard threads == 1 else {
            return (nil, "the zygote has \(threads) threads; forking it would copy only one of them")
        }
        // A status pipe whose reader went away must not end the template (and with it every report still owed).
        signal(SIGPIPE, SIG_IGN)
        var children: [(pid: Int32, pidDescriptor: Int32, status: Int32)] = []
        while true {
            var descriptors = [pollfd(fd: control, events: Int16(POLLIN), revents: 0)]
            descriptors += children.map { pollfd(fd: $0.pidDescriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return (nil, "poll failed: errno \(errno)") }
            for (index, entry) in descriptors.enumerated().dropFirst() where entry.revents != 0 {
                let child = children[index - 1]
                var status: Int32 = 0
                _ = waitpid(child.pid, &status, 0)
                withUnsafeBytes(of: status) { _ = write(child.status, $0.baseAddress, 4) }
                close(child.status)
                close(child.pidDescriptor)
            }
            children.removeAll { child in
                descriptors.dropFirst().contains { $0.fd == child.pidDescriptor && $0.revents != 0 }
            }
            guard descriptors[0].revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var passed = [Int32](repeating: -1, count: 4)
            var received: Int32 = 0
            let count = buffer.withUnsafeMutableBytes {
                microapp_receive_with_fds(control, $0.baseAddress, $0.count, &passed, 4, &received)
            }
            guard count > 0 else { return (nil, count == 0 ? nil : "the host's request was refused: errno \(errno)") }
            guard received == 4, let arguments = try? JSONDecoder().decode([String].self, from: Data(buffer[..<count]))
            else {
                passed[..<Int(received)].forEach { close($0) }
                answer(control, pid: 0, errno: EINVAL, pidDescriptor: nil)
                continue
            }
            // A feature's child is cloned into its namespaces here: two processes, not a fork that makes three.
            let inside =
                namespaces && arguments.first == "feature-host"
                ? ProcessNamespaces.fork(streams: Array(passed[..<3]), status: passed[3]) : nil
            let pid = inside ?? microapp_fork()
            if pid == 0 {
                signal(SIGPIPE, SIG_DFL)
                close(control)
                for child in children {
                    close(child.pidDescriptor)
                    close(child.status)
                }
                close(passed[3])
                for (target, descriptor) in passed[..<3].enumerated() {
                    dup2(descriptor, Int32(target))
                    close(descriptor)
                }
                return (arguments, nil)
            }
            passed[..<3].forEach { close($0) }
            guard pid > 0 else {
                answer(control, pid: 0, errno: errno, pidDescriptor: nil)
                close(passed[3])
                continue
            }
            let pidDescriptor = microapp_pidfd_open(pid)
            answer(control, pid: pid, errno: 0, pidDescriptor: pidDescriptor >= 0 ? pidDescriptor : nil)
            children.append((pid, pidDescriptor, passed[3]))
        }
    }

    private static func answer(_ control: Int32, pid: Int32, errno failure: Int32, pidDescriptor: Int32?) {
        var bytes = [UInt8](repeating: 0, count: 8)
        withUnsafeBytes(of: pid) { bytes.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: failure) { bytes.replaceSubrange(4..<8, with: $0) }
        var descriptor = pidDescriptor ?? -1
        _ = microapp_send_with_fds(control, bytes, 8, &descriptor, pidDescriptor == nil ? 0 : 1)
    }
}

/// A child the zygote forked: signal it through its pidfd, and learn how it ended from the template.
public final class ZygoteChild: Sendable {
    /// The child's process id.
    public let pid: Int32
    /// A pidfd of the child (this process's copy): readable once it ended; signals never reach a reused pid.
    public let pidDescriptor: Int32
    /// The first wait status written here is the child's end: a feature's child in its namespaces writes its
    /// feature's before it ends, and the template writes the child's own once it reaped it (the only one for a child
    /// killed before it could write).
    let statusDescriptor: Int32
    /// No signal through `pidDescriptor` once `wait` closed it (its number may be another child's pidfd by then).
    private let reaping = ReapingGuard()

    init(pid: Int32, pidDescriptor: Int32, statusDescriptor: Int32) {
        self.pid = pid
        self.pidDescriptor = pidDescriptor
        self.statusDescriptor = statusDescriptor
    }

    /// Sends the child `signal`, unless `wait` already saw its end.
    public func signal(_ signal: Int32 = SIGKILL) {
        reaping.unlessReaped { _ = microapp_pidfd_send_signal(pidDescriptor, signal) }
    }

    /// Waits until the child ended (killing it once it had `timeout` of time it could run, `ChildTimeLimit`, if
    /// given) and answers how; call once, off the main actor and the cooperative pool. Closes the descriptors.
    public func wait(timeout: Duration? = nil) -> ChildProcess.Termination {
        defer {
            reaping.reap {
                close(statusDescriptor)
                close(pidDescriptor)
            }
        }
        var timedOut = false
        if let timeout {
            let limit = ChildTimeLimit(timeout, pid: pid)
            var left = timeout
            var entry = pollfd(fd: statusDescriptor, events: Int16(POLLIN), revents: 0)
            while !timedOut {
                let ready = poll(&entry, 1, Int32(clamping: left.wholeMilliseconds + 1))
                if ready < 0 && errno == EINTR { continue }
                if ready != 0 { break }
                // At the deadline, the time the child waited for a CPU is given back (the limit says how much).
                left = limit.remaining()
                timedOut = left <= .zero
            }
            if timedOut { signal(SIGKILL) }
        }
        var status: Int32 = 0
        var count: Int
        repeat {
            count = withUnsafeMutableBytes(of: &status) { read(statusDescriptor, $0.baseAddress, 4) }
        } while count < 0 && errno == EINTR
        if timedOut { return .timedOut }
        // No status: the template died before reaping it; the child's end is all that is known.
        guard count == 4 else { return .signalled(SIGKILL) }
        return ChildProcess.Termination(waitStatus: status)
    }
}
