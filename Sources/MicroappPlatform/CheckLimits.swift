import MicroappCore

/// The bounds one check of a channel keeps against a server that sends slowly on purpose (TUF's slow-retrieval
/// attack): the whole check — the index and every file — ends by one deadline, and a transfer that averages fewer
/// bytes a second than a floor, once past a grace for connecting, is cut. Each can be set for a slow link, or for a
/// test, by an environment variable: `MICROAPP_CHECK_DEADLINE` and `MICROAPP_MIN_RATE_AFTER` (seconds),
/// `MICROAPP_MIN_RATE` (bytes a second).
public struct CheckLimits: Sendable, Equatable {
    /// How long a whole check may take.
    public var deadline: Duration
    /// The fewest bytes a second a transfer must average from its start.
    public var minimumRate: Int
    /// How long a transfer runs before the floor applies (connecting, the server's first answer).
    public var grace: Duration
    /// Whom an HTTPS server's certificate must come from.
    public var authorities = CertificateAuthorities.system

    /// Ten minutes a check; 1 KiB a second on average once a transfer has run 30 s.
    public static let standard = CheckLimits(deadline: .seconds(600), minimumRate: 1024, grace: .seconds(30))

    /// Limits of `deadline`, `minimumRate` and `grace`.
    public init(deadline: Duration, minimumRate: Int, grace: Duration) {
        self.deadline = deadline
        self.minimumRate = max(1, minimumRate)
        self.grace = grace
    }

    /// The standard limits, each replaced by its variable in `environment` when that holds a positive number, and the
    /// certificate authorities its variables name.
    public init(environment: HostEnvironment) {
        func positive(_ name: String) -> Double? {
            environment[name].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
        }
        let standard = Self.standard
        self.init(
            deadline: positive("MICROAPP_CHECK_DEADLINE").map { .seconds($0) } ?? standard.deadline,
            minimumRate: positive("MICROAPP_MIN_RATE").map { Int($0) } ?? standard.minimumRate,
            grace: positive("MICROAPP_MIN_RATE_AFTER").map { .seconds($0) } ?? standard.grace)
        authorities = CertificateAuthorities(environment: environment)
    }
}

/// One check's share of its `CheckLimits`: the instant it must be over by, which every transfer of the check counts
/// against.
public struct CheckBudget: Sendable {
    /// The limits.
    public var limits: CheckLimits
    /// When the check must be over.
    public var deadline: ContinuousClock.Instant
    /// Reads the clock the deadline is on.
    public var clock: @Sendable () -> ContinuousClock.Instant

    /// A check that starts now on `clock`, bounded by `limits`.
    public init(_ limits: CheckLimits, clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.limits = limits
        self.clock = clock
        deadline = clock() + limits.deadline
    }
}

/// Where one transfer stands against its check's budget, from what it counted: a decision of values, no clock read
/// and no wait, so a test states the instants.
public struct TransferPace: Sendable {
    /// When the transfer began.
    public let started: ContinuousClock.Instant
    /// The check's budget it counts against.
    public let budget: CheckBudget

    /// The pace of a transfer that began at `started` within `budget`.
    public init(started: ContinuousClock.Instant, budget: CheckBudget) {
        self.started = started
        self.budget = budget
    }

    /// What to do with a transfer that has `bytes` at `now`.
    public enum Verdict: Equatable, Sendable {
        /// Go on; look again at this instant (when the floor or the deadline could next be broken) or on news.
        case wait(until: ContinuousClock.Instant)
        /// It averaged less than the floor.
        case tooSlow
        /// The check's deadline passed.
        case pastDeadline
    }

    /// The verdict on a transfer that has received `bytes` by `now`.
    public func verdict(bytes: Int, at now: ContinuousClock.Instant) -> Verdict {
        if now >= budget.deadline { return .pastDeadline }
        let rate = Double(budget.limits.minimumRate)
        let floorFrom = started + budget.limits.grace
        if now >= floorFrom && Double(bytes) < rate * (now - started).timeInterval { return .tooSlow }
        // The bytes so far keep the average above the floor until `enough`; nothing can break it before.
        let enough = started + .seconds(Double(bytes) / rate)
        return .wait(until: min(budget.deadline, max(floorFrom, enough)))
    }
}
