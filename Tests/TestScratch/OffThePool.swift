import Foundation
import Testing

// Swift Testing runs a test's body, synchronous ones too, on Swift's cooperative pool, which has one thread per core
// (two on our machines). A body that waits for a child process, a compiler, a file lock or a password hash holds its
// thread for all that time; with both held, every other test's `await` waits with them. Seen in full runs on a loaded
// machine: a probe of the pool (an empty `Task.detached` awaited every 50 ms) waited up to 7.7 s, and the seven
// Search tests, whose debounced search hops through the pool, timed out together at 30 s while synchronous tests of
// the platform's tests waited on probe children and cc there (gdb's stacks of the two pool threads).
//
// A synchronous test marked `.offThePool` runs on a few threads of their own instead: what it blocks stays its own,
// and the pool is left to the awaits of the rest. Every synchronous test of the targets whose tests wait on
// processes, builds, locks and hashes is marked (MicroappPlatformTests, MicroappDevLoopTests, DemoServicesTests, …).
// An asynchronous test hands its blocking calls to `BlockingWork.run` or `offThePool { }` itself: after an await its
// task was seen resuming on the pool whatever executor it preferred, so a mark would not keep it off. A `@MainActor`
// test stays on the main actor.

/// Runs the synchronous test it marks on `BlockingTestThreads`, not on the cooperative pool.
public struct OffThePool: TestTrait, TestScoping {
    /// Runs the test in a task of its own that prefers `BlockingTestThreads.shared`, and waits for it: a new task's
    /// first job goes to the executor it prefers (a preference set on the running task was seen not to move a body
    /// that never awaits in full runs). The task inherits the test's task-local values, so its issues are the test's.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withoutActuallyEscaping(function) { function in
            try await Task(executorPreference: BlockingTestThreads.shared) { try await function() }.value
        }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the synchronous test on a thread of its own, off the cooperative pool (see `OffThePool`).
    public static var offThePool: Self { OffThePool() }
}

/// A task executor of a fixed number of threads, started on first use, that run the jobs given to them in order of
/// arrival. More threads than cores, so that tests waiting on children leave room for others; few, so that the
/// tests marked do not all start their processes at once.
public final class BlockingTestThreads: TaskExecutor, @unchecked Sendable {
    /// The threads of this test process: three per core.
    public static let shared = BlockingTestThreads(count: 3 * ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    // Guarded by `condition`: highest priority first, in order of arrival within a priority.
    private var jobs: [(job: UnownedJob, priority: UInt8)] = []

    /// True on one of these threads.
    public static var isCurrent: Bool { pthread_getspecific(marker) != nil }

    /// A thread-specific value only these threads set. Not Foundation's `Thread.current`: a thread that asks for it
    /// before `Thread.detachNewThread`'s caller has recorded the new thread gets an object of its own, so a name or a
    /// dictionary entry set there was lost about one solo run in six (the thread then read as the pool's).
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private init(count: Int) {
        for index in 0..<max(count, 2) {
            Thread.detachNewThread { [unowned self] in
                pthread_setspecific(Self.marker, UnsafeRawPointer(bitPattern: 1))
                // Named from inside (a new thread takes its creator's name), for people reading gdb's or ps's lists.
                try? "off-the-pool \(index)".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                self.work()
            }
        }
    }

    /// Queues `job` for the next free thread, after the jobs of its priority and higher: a test of a suite that runs at
    /// high priority (`PromptResumes`, an end-to-end chain) is not queued behind the waits of every unit test marked.
    public func enqueue(_ job: consuming ExecutorJob) {
        let priority = job.priority.rawValue
        let job = UnownedJob(job)
        condition.lock()
        let index = jobs.lastIndex { $0.priority >= priority }.map { $0 + 1 } ?? 0
        jobs.insert((job, priority), at: index)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst().job
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
