/// Decides whether a feature's own navigation request (push, open, pop, pop to root) moves the person: only while its
/// screen is on top and in answer to the person — within `window` of their last action, which must have been on that
/// feature's screen — as browsers let a page open a pop-up only after a click. The person's own navigation (back, a
/// tab, an address) ends that answer: a late request cannot take them away from where they went. Every request also
/// spends from the feature's budget (`burst`, refilled at `perSecond` and in full by each action of the person on its
/// screen); past it, the request is over the limit. Pure logic: the runtime passes the time, from its injected clock.
public struct NavigationGate: Sendable {
    /// What to do with one request.
    public enum Verdict: Sendable, Equatable {
        /// Move the person.
        case allowed
        /// Drop it: the feature's screen is not on top (`onTop` is, or a host screen when nil).
        case notOnTop(onTop: String?)
        /// Drop it: the person did not just act on the feature's screen (or navigated since).
        case notInAnswer
        /// Drop it: the feature spent its budget; `first` for the first request past it since it last had budget.
        case overLimit(first: Bool)
    }

    /// How long after the person's action on a screen its feature may still navigate (what the action awaited: a
    /// service call, a debounce).
    public static let window: Duration = .seconds(5)
    /// The most requests a feature may make at once.
    public static let burst = 16
    /// How many requests a feature's budget regains each second.
    public static let perSecond = 4

    private struct Budget {
        var tokens = Double(NavigationGate.burst)
        var at: Duration
        var exhausted = false
    }

    /// The person's last action on a feature's screen, and when.
    private var activation: (feature: String, at: Duration)?
    private var budgets: [String: Budget] = [:]

    /// Creates a gate with no action seen yet.
    public init() {}

    /// The person acted on `feature`'s screen at `now`: it may navigate for `window`, with its full budget.
    public mutating func personActed(on feature: String, at now: Duration) {
        activation = (feature, now)
        budgets[feature] = Budget(at: now)
    }

    /// The person navigated themselves (back, a tab, an address) or acted on a host screen: no feature is answering.
    public mutating func personNavigated() {
        activation = nil
    }

    /// The verdict on `feature`'s request at `now`, with `onTop` the feature on screen (nil for a host screen).
    public mutating func request(from feature: String, onTop: String?, at now: Duration) -> Verdict {
        var budget = budgets[feature] ?? Budget(at: now)
        let elapsed = now - budget.at
        budget.tokens = min(Double(Self.burst), budget.tokens + max(0, elapsed.timeInterval) * Double(Self.perSecond))
        budget.at = now
        defer { budgets[feature] = budget }
        guard budget.tokens >= 1 else {
            let first = !budget.exhausted
            budget.exhausted = true
            return .overLimit(first: first)
        }
        budget.tokens -= 1
        budget.exhausted = false
        guard onTop == feature else { return .notOnTop(onTop: onTop) }
        guard let activation, activation.feature == feature, now - activation.at <= Self.window else {
            return .notInAnswer
        }
        return .allowed
    }
}
