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
    /// How many more deadlines a request gets while its child is kept waiting for a CPU by other work.
    public nonisolated static let maximumExtensions = 3
    private let clock: any Clock<Duration>
    private let starved: () async -> Bool
    private let expired: (String) -> Void
    private var pending: [Int: Task<Void, Never>] = [:]
    private var nextTicket = 0
    /// The request that expired first, nil while none has: the child's end is reported as hung on it.
    public private(set) var expiredRequest: String?

    /// A watchdog with `deadline` on `clock`; `expired` runs on the main actor, at most once. At a deadline,
    /// `starved` says whether the child is kept waiting for a CPU by other work (a busy machine, not a hang): then the
    /// request gets another deadline, at most `maximumExtensions` times.
    public init(
        deadline: Duration = RequestWatchdog.defaultDeadline, clock: any Clock<Duration> = ContinuousClock(),
        starved: @escaping () async -> Bool = { false }, expired: @escaping (String) -> Void
    ) {
        self.deadline = deadline
        self.clock = clock
        self.starved = starved
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
            for granted in 0...Self.maximumExtensions {
                do { try await timer() } catch { return }
                guard let self, self.pending[ticket] != nil else { return }
                guard granted < Self.maximumExtensions, await self.starved(), self.pending[ticket] != nil else { break }
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
