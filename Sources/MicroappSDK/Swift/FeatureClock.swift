import Synchronization

// Time as a dependency (swift-dependencies' clocks): a feature waits (debounces, delays) on the clock its context
// hands it, never on `Task.sleep` directly, so tests move time by hand and previews skip the waits.

extension Clock where Duration == Swift.Duration {
    /// A wait that ends `delay` after now: the deadline is read when this is called, not when the wait starts, so
    /// a test that advances a `TestClock` right after finds it due whenever the waiting task gets to run.
    public func timer(after delay: Duration) -> @Sendable () async throws -> Void {
        let deadline = now.advanced(by: delay)
        return { try await self.sleep(until: deadline, tolerance: nil) }
    }
}

/// A clock whose time moves only when a test says so: `advance(by:)` resumes the sleepers whose deadline it
/// passes, earliest deadline first. A sleep whose deadline has passed returns at once; a cancelled one throws.
public final class TestClock: Clock, Sendable {
    /// A point on the test clock: how far it was advanced since it was made.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        /// The instant `offset` after the clock was made.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }

        /// How long from this instant to `other`.
        public func duration(to other: Self) -> Duration { other.offset - offset }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// A clock at offset zero with no sleepers.
    public init() {}

    /// The time the clock was last advanced to.
    public var now: Instant { state.withLock { $0.now } }

    /// The test clock has no resolution of its own.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps wait for a later time now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Returns once the clock reaches `deadline`; throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.withLock { state -> Bool in
                    guard state.now < deadline, !Task.isCancelled else { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves time forward by `duration`, resuming each sleeper it reaches in deadline order (tasks on one actor
    /// then run in that order).
    /// The clock reaches `end` in the same critical section that finds no sleeper left before it, so a sleep that
    /// starts meanwhile (on another thread) either is found here or sees the new time and returns at once.
    public func advance(by duration: Duration) {
        let end = now.advanced(by: duration)
        while let due = state.withLock({ state -> Sleeper? in
            let due = state.sleepers.filter { $0.value.deadline <= end }
            guard let next = due.min(by: { $0.value.deadline < $1.value.deadline }) else {
                state.now = max(state.now, end)
                return nil
            }
            state.now = max(state.now, next.value.deadline)
            return state.sleepers.removeValue(forKey: next.key)
        }) {
            due.continuation.resume()
        }
    }
}

/// A clock on which every sleep returns at once (unless its task is cancelled), for previews that should show
/// what a wait leads to without waiting.
public final class ImmediateClock: Clock, Sendable {
    /// The immediate clock's time, which moves by each sleep's length.
    public typealias Instant = TestClock.Instant

    private let current = Mutex(Instant(offset: .zero))

    /// A clock at offset zero.
    public init() {}

    /// The time after every sleep so far.
    public var now: Instant { current.withLock { $0 } }

    /// No resolution of its own.
    public var minimumResolution: Duration { .zero }

    /// Returns at once, having moved the clock to `deadline`; throws `CancellationError` when cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
    }
}
