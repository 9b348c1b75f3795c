import Foundation

/// A time limit on a child process that counts only the time the child could run: the time its threads spent
/// runnable but waiting for a CPU (the kernel's run queue, `/proc/PID/task/*/schedstat`) is added back, so a probe
/// or a feature's start on a machine busy with other work is not mistaken for a hang. A child that hangs (asleep,
/// deadlocked) or spins on an idle machine waits for no CPU and meets the limit as it is; on a loaded machine the
/// wait is extended at most to `stretch` times the limit.
package struct ChildTimeLimit: Sendable {
    /// The limit in the child's own time.
    package let limit: Duration
    /// The most wall time the limit may stretch to, as a multiple of `limit`.
    package static let stretch = 4
    private let started: ContinuousClock.Instant
    /// The child's run-queue wait so far (since it started), nil when it cannot be read.
    private let waited: @Sendable () -> Duration?

    /// A limit of `limit` on `pid` from `started` (now by default); `pid`'s run-queue wait is read from /proc.
    package init(_ limit: Duration, pid: pid_t, started: ContinuousClock.Instant = .now) {
        self.init(limit, started: started) { RunQueueWait.total(of: pid) }
    }

    /// A limit whose run-queue wait is read by `waited` (a test passes its own).
    package init(
        _ limit: Duration, started: ContinuousClock.Instant, waited: @escaping @Sendable () -> Duration?
    ) {
        self.limit = limit
        self.started = started
        self.waited = waited
    }

    /// How much longer the child may take at `now`: zero once it has had `limit` of time it could run, or the wall
    /// time reached `stretch` times the limit.
    package func remaining(at now: ContinuousClock.Instant = .now) -> Duration {
        let elapsed = now - started
        let ceiling = limit * Self.stretch
        guard elapsed < ceiling else { return .zero }
        let starved = min(waited() ?? .zero, elapsed)
        let left = limit - (elapsed - starved)
        return max(.zero, min(left, ceiling - elapsed))
    }
}

/// The time a process's threads, and its descendants', spent runnable but not running (waiting on the run queue): a
/// feature's child in namespaces of its own (`ProcessNamespaces`) is the process the host started, which only waits,
/// and below it the namespace's first process and the feature's own.
package enum RunQueueWait {
    /// The sum over the threads of `pid` and its descendants now; nil when /proc does not say (no such process, no
    /// scheduler statistics).
    package static func total(of pid: pid_t) -> Duration? {
        var nanoseconds: UInt64 = 0
        var read = false
        var processes = [pid]
        while let process = processes.popLast() {
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task") else {
                continue
            }
            for task in tasks {
                // "time on CPU, time waiting on the run queue, timeslices", in nanoseconds.
                let fields = Files.procText("/proc/\(process)/task/\(task)/schedstat").split(separator: " ")
                if fields.count >= 2, let wait = UInt64(fields[1]) {
                    nanoseconds &+= wait
                    read = true
                }
                processes += Files.procText("/proc/\(process)/task/\(task)/children").split(separator: " ")
                    .compactMap { pid_t($0) }
            }
        }
        return read ? .nanoseconds(nanoseconds) : nil
    }
}
