import Foundation
import Synchronization

/// Blocking work (waiting for a process, a build, a lock, a hash) runs on threads of its own and is awaited:
/// Swift's cooperative pool has one thread per core (two here), and one blocked thread stalls half the app.
public enum BlockingWork {
    /// Runs `work` on a new thread of its own and answers what it returned or threw.
    public static func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            Thread.detachNewThread { continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }
}

/// Blocking work that must run one piece at a time (one SQLite connection), in order, on a thread of its own
/// (started when work arrives, ended when none is left), never on the cooperative pool.
public final class BlockingQueue: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var draining = false
    }

    private let state = Mutex(State())

    /// An empty queue.
    public init() {}

    /// Runs `work` after the work queued before it and answers what it returned or threw.
    public func run<T: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            enqueue { continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.jobs.append(job)
            defer { state.draining = true }
            return !state.draining
        }
        if start { Thread.detachNewThread { [self] in drain() } }
    }

    private func drain() {
        while let job = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.jobs.isEmpty else {
                state.draining = false
                return nil
            }
            return state.jobs.removeFirst()
        }) {
            job()
        }
    }
}
