import MicroappCore
import MicroappSDK

/// The isolation protocol's rules on the host's side, as a value: what a feature's child may send at each stage, the
/// requests in flight and the locations asked, the state and services it was granted at `start`, the service calls
/// being answered and the burst budget. It decides and keeps count; `IsolatedRoot` does what a verdict says (acts on
/// the message, or kills the child). It runs no process and does no I/O, so the protocol is tested message by message
/// (`ChildMessageGateTests`), as a channel's handlers are tested without a socket.
struct ChildMessageGate {
    /// Where the feature's stages are.
    enum Phase { case handshake, welcomed, started, ended }

    /// What the host does with one message from the child.
    enum Verdict: Equatable {
        /// Act on it.
        case accept
        /// Drop it: the child ended or was cut off, and nothing it sends counts any more.
        case ignore
        /// Kill the child for breaking the protocol; the reason completes "its child sent …".
        case cutOff(String)
    }

    /// The most service calls of the child the host answers at once.
    static let maximumAnswering = 64

    /// The feature's stage.
    var phase = Phase.handshake
    /// Why the child was cut off, once it was: nothing it sends after counts.
    var violation: String?
    /// Screen, opening and action requests sent and not yet answered with `done`.
    private(set) var pending = 0
    /// The locations whose screens the host asked for: a screen for any other is a fault.
    private(set) var asked: Set<Location> = []
    /// The services the child's manifest requires (it may call only those).
    private var declared: Set<String> = []
    /// Of those, the ones the host answers (granted at `start`): a call of any other is a fault.
    private var served: Set<String> = []
    /// The state the child was granted at `start`, by key: whether it may write it.
    private var state: [String: Bool] = [:]
    /// Service calls of the child being answered.
    private(set) var answering = 0
    private var budget: MessageBudget

    /// A gate for a new child, its burst budget refilled by the time `now` reads.
    init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        budget = MessageBudget(now: now)
    }

    /// The feature was started with these grants: `declared` services its manifest requires, `served` those the host
    /// answers, `state` each granted piece of state by key (true: it may write it).
    mutating func started(declared: Set<String>, served: Set<String>, state: [String: Bool]) {
        self.declared = declared
        self.served = served
        self.state = state
    }

    /// A screen, opening or action request about `location` is sent: its `done` is awaited, its screen may come.
    mutating func requested(_ location: Location) {
        asked.insert(location)
        pending += 1
    }

    /// A service call of the child was answered.
    mutating func answered() { answering -= 1 }

    /// The verdict on a line the child printed, which counts against the log budget.
    mutating func admitPrinted() -> Verdict {
        guard phase != .ended else { return .ignore }
        guard budget.allow(isLog: true) else { return .cutOff("more than \(MessageBudget.logs) printed lines at once") }
        return .accept
    }

    /// The verdict on `message` from the child; counts it (the budget, a request answered, a call being answered).
    mutating func admit(_ message: FeatureMessage) -> Verdict {
        guard phase != .ended, violation == nil else { return .ignore }
        guard message.isFromChild else { return .cutOff("a host message (\(message.name)) from the child") }
        guard budget.allow(isLog: message.isLog) else {
            return .cutOff("more than \(MessageBudget.messages) messages or \(MessageBudget.logs) log lines at once")
        }
        switch message {
        case .welcome(let version, _):
            guard phase == .handshake else { return .cutOff("a second welcome") }
            guard version == FeatureWire.version else {
                return .cutOff("protocol version \(version), the host speaks \(FeatureWire.version)")
            }
        case .refused:
            guard phase == .handshake else { return .cutOff("a refusal after the handshake") }
        case .screenUpdate(let location, _):
            guard asked.contains(location) else {
                return .cutOff("a screen for \(location.url), which the host did not ask for")
            }
        case .done:
            guard pending > 0 else { return .cutOff("an answer to no request") }
            pending -= 1
        case .stateWrite(let key, _):
            guard let writable = state[key] else { return .cutOff("a write of '\(key)', which it was not granted") }
            guard writable else { return .cutOff("a write of '\(key)', which it may only read") }
        case .serviceCall(_, let key, _):
            guard declared.contains(key) else { return .cutOff("a call of '\(key)', which it did not declare") }
            // The feature's own declaration is not enough: the host serves only what it was granted at start.
            guard served.contains(key) else { return .cutOff("a call of '\(key)', which it was not granted") }
            guard answering < Self.maximumAnswering else {
                return .cutOff("more than \(Self.maximumAnswering) service calls at once")
            }
            answering += 1
        default: break
        }
        return .accept
    }
}

/// How many messages and log lines a child may send in a burst: each bucket refills at its rate per second.
struct MessageBudget {
    static let messages = 4000
    static let logs = 1000
    private var messageTokens = Double(messages)
    private var logTokens = Double(logs)
    private let clock: @Sendable () -> ContinuousClock.Instant
    private var last: ContinuousClock.Instant

    /// A full budget, refilled by the time `now` reads.
    init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        clock = now
        last = now()
    }

    mutating func allow(isLog: Bool) -> Bool {
        let now = clock()
        let elapsed = (now - last).timeInterval
        last = now
        messageTokens = min(Double(Self.messages), messageTokens + elapsed * Double(Self.messages) / 2)
        logTokens = min(Double(Self.logs), logTokens + elapsed * Double(Self.logs) / 2)
        messageTokens -= 1
        if isLog { logTokens -= 1 }
        return messageTokens >= 0 && logTokens >= 0
    }
}
