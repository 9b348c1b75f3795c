/// A handle that keeps an observation alive; cancel it or let it go to stop observing.
@MainActor
public final class Observation {
    private var onCancel: (() -> Void)?

    init(_ onCancel: @escaping () -> Void) { self.onCancel = onCancel }

    /// Stops the observation.
    public func cancel() {
        onCancel?()
        onCancel = nil
    }

    isolated deinit { onCancel?() }
}

/// Who listens to one piece of state, by the id each observation removes itself with.
@MainActor
struct Observers<Value> {
    private var listeners: [Int: (Value) -> Void] = [:]
    private var nextID = 0

    mutating func add(_ listener: @escaping (Value) -> Void) -> Int {
        nextID += 1
        listeners[nextID] = listener
        return nextID
    }

    mutating func remove(_ id: Int) { listeners[id] = nil }

    func notify(_ value: Value) {
        for listener in listeners.values { listener(value) }
    }
}

/// Shared state with one owner who may change it; everyone else sees it through `readOnly`.
@MainActor
public final class ObservableProperty<Value> {
    private var observers = Observers<Value>()
    /// Observations that tie this property to the host's copy of the state (a feature's owned state).
    var links: [Observation] = []

    /// The current value; setting it tells every observer.
    public var value: Value {
        didSet { observers.notify(value) }
    }

    /// Creates the state with a first value.
    public init(_ value: Value) { self.value = value }

    /// A read-only copy of this state that follows its changes, for features granted read access: it holds the
    /// value and an observation, never this property, so nothing reached from it can write.
    public var readOnly: ObservableValue<Value> {
        ObservableValue(value) { [weak self] receive in self?.observe(receive) }
    }

    /// Calls `onChange` with each new value until the returned observation ends.
    public func observe(_ onChange: @escaping (Value) -> Void) -> Observation {
        let id = observers.add(onChange)
        return Observation { [weak self] in self?.observers.remove(id) }
    }
}

/// A read-only view of shared state: its own copy of the value, updated by the host; it can be read and observed,
/// never written.
@MainActor
public final class ObservableValue<Value> {
    private var observers = Observers<Value>()
    private var feed: Observation?

    /// The current value.
    public private(set) var value: Value

    /// A copy holding `value` that follows what `subscribe` delivers for as long as it lives.
    init(_ value: Value, subscribe: (@escaping (Value) -> Void) -> Observation?) {
        self.value = value
        feed = subscribe { [weak self] new in self?.receive(new) }
    }

    private func receive(_ new: Value) {
        value = new
        observers.notify(new)
    }

    /// Calls `onChange` with each new value until the returned observation ends. The observation keeps this copy
    /// alive: a feature may keep only the observation, and the copy must go on following the host.
    public func observe(_ onChange: @escaping (Value) -> Void) -> Observation {
        let id = observers.add(onChange)
        return Observation { self.observers.remove(id) }
    }
}
