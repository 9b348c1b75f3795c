import MicroappSDK

/// Watches the requests the host sends an isolated feature (a screen, an action): one that is not answered within
/// the deadline on the given clock calls `expired` once, with the request's name, so the owner kills the child and
/// reports `feature-hung`. Waiting happens in a task, never on the main actor, so a hung child cannot freeze the
/// host; tests drive the clock by hand (`TestClock`) instead of waiting out real seconds.
@MainActor
public final class RequestWatchdog {
    /// The deadline when nothing says otherwise.
    public nonisolated static let defaultDeadline = Duration.seconds(2)
    /// The environment variable that sets the deadline in milliseconds (tests, slow machines).
    public nonisolated static let environmentKey = "MICROAPP_FEATURE_DEADLINE_MS"

    /// How long a request may go unanswered.
    public let deadline: Duration
    /// Why a request past its deadline is not yet a hang.
    public enum Excuse: Sendable {
        /// The child is runnable but other work holds the CPU: another deadline, at most `maximumExtensions` times.
        case starved
        /// The child waits for the host's answer to a service call of its own: that time is the host's, and the
        /// deadline starts again, for at most `maximumHostWait` in all (a child that keeps calls going from another
        /// thread while its main thread is frozen is still found hung).
        case waitingForHost
    }

    /// How many more deadlines a request gets while its child is kept waiting for a CPU by other work.
    public nonisolated static let maximumExtensions = 3
    /// The most of the host's time a request is excused for: the host's own services give up within it (a URL
    /// request's default timeout is 60 s).
    public nonisolated static let maximumHostWait = Duration.seconds(60)
    private let clock: any Clock<Duration>
    private let excuse: () async -> Excuse?
    private let expired: (String) -> Void
    private var pending: [Int: Task<Void, Never>] = [:]
    private var nextTicket = 0
    /// The request that expired first, nil while none has: the child's end is reported as hung on it.
    public private(set) var expiredRequest: String?

    /// A watchdog with `deadline` on `clock` (the platform's live one, or a test's); `expired` runs on the main actor,
    /// at most once. At a deadline, `excuse` says why the child may not be hung (see `Excuse`), or nil when nothing
    /// excuses it.
    public init(
        deadline: Duration = RequestWatchdog.defaultDeadline, clock: any Clock<Duration>,
        excuse: @escaping () async -> Excuse? = { nil }, expired: @escaping (String) -> Void
    ) {
        self.deadline = deadline
        self.clock = clock
        self.excuse = excuse
        self.expired = expired
    }

    /// The deadline `environment` sets (`MICROAPP_FEATURE_DEADLINE_MS`), or the default when it sets none or
    /// something that is not a positive number of milliseconds.
    public nonisolated static func deadline(from environment: [String: String]) -> Duration {
        guard let text = environment[environmentKey], let milliseconds = Int(text), milliseconds > 0 else {
            return defaultDeadline
        }
        return .milliseconds(milliseconds)
    }

    /// Starts watching `request` (`screen characters://list`, `action tap increment`); returns the ticket to hand
    /// to `answered(_:)`.
    public func begin(_ request: String) -> Int {
        nextTicket += 1
        let ticket = nextTicket
        let (clock, deadline) = (clock, deadline)
        let first = clock.timer(after: deadline)
        pending[ticket] = Task { [weak self] in
            var timer = first
            var granted = 0
            var hostTime = Duration.zero
            waiting: while true {
                do { try await timer() } catch { return }
                guard let excuse = await self?.excuse(), self?.pending[ticket] != nil else { break }
                switch excuse {
                case .starved:
                    guard granted < Self.maximumExtensions else { break waiting }
                    granted += 1
                case .waitingForHost:
                    guard hostTime < Self.maximumHostWait else { break waiting }
                    hostTime += deadline
                }
                timer = clock.timer(after: deadline)
            }
            self?.expire(ticket, request)
        }
        return ticket
    }

    /// The request of `ticket` was answered: it no longer counts.
    public func answered(_ ticket: Int) {
        pending.removeValue(forKey: ticket)?.cancel()
    }

    /// How many requests wait for an answer.
    public var waiting: Int { pending.count }

    /// Stops watching everything (the child ended for another reason).
    public func cancelAll() {
        pending.values.forEach { $0.cancel() }
        pending = [:]
    }

    private func expire(_ ticket: Int, _ request: String) {
        guard pending.removeValue(forKey: ticket) != nil, expiredRequest == nil else { return }
        expiredRequest = request
        cancelAll()
        expired(request)
    }
}
