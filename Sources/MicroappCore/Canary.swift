/// The canary of live updates, kept apart from processes, files and timers: after a running app takes version N of a
/// feature from a channel, N is on trial for `window`; a crash, a hang or a failed probe of N within it means going
/// back to the version that ran before and marking N bad, and a trial whose window ended unharmed passes. Time is a
/// value handed in (`Instant`), so a test drives it with a clock of its own, as `CrashLoop`'s.
public struct Canary<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// A version on trial: the feature, the version taken, the one it replaced, and when it went live.
    public struct Trial: Sendable, Equatable {
        /// The feature's id.
        public var feature: String
        /// The version taken from the channel.
        public var version: Int
        /// The version that ran before it, which a failure restores.
        public var previous: Int
        /// When it went live (or was installed, for one refused before it ran).
        public var began: Instant
    }

    /// What went wrong with a version on trial.
    public enum Failure: Sendable, Equatable {
        /// Its process crashed or exited (the reason in words, `it crashed (signal 11, SIGSEGV)`).
        case crashed(String)
        /// It did not answer a request within the deadline.
        case hung(String)
        /// Its probe or start refused it before it could run.
        case refused(String)

        /// The reason in words.
        public var reason: String {
            switch self {
            case .crashed(let reason), .hung(let reason), .refused(let reason): reason
            }
        }
    }

    /// A failed trial: go back to `restored` and mark `bad`, saying `reason`.
    public struct Rollback: Sendable, Equatable {
        /// The feature's id.
        public var feature: String
        /// The version that failed its trial: never installed again.
        public var bad: Int
        /// The version that ran before, which runs again.
        public var restored: Int
        /// What went wrong, in words.
        public var reason: String

        /// Going back from `bad` of `feature` to `restored` because of `reason`.
        public init(feature: String, bad: Int, restored: Int, reason: String) {
            self.feature = feature
            self.bad = bad
            self.restored = restored
            self.reason = reason
        }

        /// The notice a person reads: feature, bad version, the one restored, why.
        public var notice: Notice {
            Notice(
                level: .error, code: .updateRolledBack,
                message:
                    "\(feature) v\(bad) was rolled back to v\(restored): \(reason) within its canary window; "
                    + "v\(bad) is marked bad and will not be installed again",
                fix: "publish a fixed release with a higher version; the next check installs it", feature: feature,
                from: bad, to: restored)
        }
    }

    /// How long a new version is on trial.
    public let window: Duration
    /// The versions on trial now, by feature id.
    public private(set) var trials: [String: Trial] = [:]

    /// A canary with `window` (30 s by default).
    public init(window: Duration = Canary.defaultWindow) { self.window = window }

    /// The window when nothing says otherwise.
    public static var defaultWindow: Duration { .seconds(30) }

    /// Version `version` of `feature` went live at `now`, replacing `previous`: its trial starts (a trial of an
    /// earlier update of the same feature ends: what runs now is on trial).
    public mutating func began(_ feature: String, version: Int, replacing previous: Int, at now: Instant) {
        trials[feature] = Trial(feature: feature, version: version, previous: previous, began: now)
    }

    /// `feature` failed at `now`: within its window, the rollback to make (its trial ends); outside any window, nil
    /// (a crash of a version that passed is an ordinary stop).
    public mutating func failed(_ feature: String, _ failure: Failure, at now: Instant) -> Rollback? {
        guard let trial = trials[feature] else { return nil }
        trials[feature] = nil
        guard trial.began.duration(to: now) <= window else { return nil }
        return Rollback(feature: feature, bad: trial.version, restored: trial.previous, reason: failure.reason)
    }

    /// The trials whose window ended by `now` unharmed, oldest first; they are over.
    public mutating func passed(at now: Instant) -> [Trial] {
        let over = trials.values.filter { $0.began.duration(to: now) > window }.sorted { $0.began < $1.began }
        for trial in over { trials[trial.feature] = nil }
        return over
    }

    /// When the next trial's window ends; nil when nothing is on trial.
    public var nextEnd: Instant? { trials.values.map { $0.began.advanced(by: window) }.min() }

    /// The notice of a trial that passed.
    public func passedNotice(_ trial: Trial) -> Notice {
        Notice(
            level: .info, code: .canaryPassed,
            message: "\(trial.feature) v\(trial.version) passed its canary window (\(window.components.seconds) s)",
            feature: trial.feature, from: trial.previous, to: trial.version)
    }
}
