import CPlatform
import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// A child made by `fork` of this process instead of a new start of the executable: it has the Swift runtime,
/// Foundation and every library mapped and linked already, which saves a whole process start (exec, dynamic linking,
/// runtime start-up). Only a process that is still single-threaded may fork (a fork copies the calling thread
/// alone, and a lock another thread held would stay held in the child), so `fork` checks and answers nil otherwise.
///
/// The runtime read `SWIFT_BACKTRACE` when this process started, so the child keeps this process's crash settings;
/// it gets its own crash handler instead (`microapp_crash_report_install`), writing a report `CrashReport` reads.
public struct ForkedProcess: Sendable {
    /// Which side of the fork the caller is on.
    public enum Side: Sendable {
        /// This process, with the child it made.
        case parent(ForkedProcess)
        /// The new child, which goes on from where `fork` was called.
        case child
    }

    /// The child's process id (not reaped until `wait` returns).
    public let pid: pid_t

    /// Forks when this process has one thread; nil when it has more (start the executable instead). In the child,
    /// descriptors from 3 up are closed, `defaultSignals` get their default action back, `environment` is added to its environment, and a crash writes a
    /// report to the new file `crashReport` before the signal ends it. Throws when `fork` fails.
    public static func fork(
        environment: [String: String], defaultSignals: [Int32], crashReport: String
    ) throws(SystemCallError) -> Side? {
        guard threadCount == 1 else { return nil }
        let pid = try SystemCall.run("fork") { microapp_fork() }
        guard pid == 0 else { return .parent(ForkedProcess(pid: pid)) }
        // Only 0, 1 and 2 go on, as in a started child: a descriptor this process inherited would stay open in it.
        // The template forked before main stays reachable: the app process forks its isolated features from it.
        _ = microapp_close_from_keeping_early_zygote(3)
        for signal in defaultSignals { Glibc.signal(signal, SIG_DFL) }
        for (name, value) in environment { setenv(name, value, 1) }
        // Without its own handler the child would crash as its parent was told to (interactively, on a terminal);
        // with none at all it still ends by the signal, only without a report.
        if microapp_crash_report_install(crashReport) != 0 {
            for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT] { Glibc.signal(signal, SIG_DFL) }
        }
        return .child
    }

    /// Waits until the child ended, reaps it and answers how it ended; call once, off the cooperative pool.
    public func wait() -> ChildProcess.Termination {
        var status: Int32 = 0
        // Failing other than by an interruption, the child is not ours to wait for: its end is all that is known.
        guard (try? SystemCall.run("waitpid", { waitpid(pid, &status, 0) })) != nil else { return .signalled(SIGKILL) }
        return ChildProcess.Termination(waitStatus: status)
    }

    /// Waits up to `limit` for the child to end, then kills it, and reaps it; off the cooperative pool.
    func reap(within limit: Duration) {
        let descriptor = microapp_pidfd_open(pid)
        if descriptor >= 0 {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: limit.wholeMilliseconds)
            var ready: Int32
            repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
            close(descriptor)
            if ready == 0 { kill(pid, SIGKILL) }
        }
        _ = wait()
    }

    /// The threads of this process (`/proc/self/task`); 0 when that cannot be read.
    public static var threadCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
