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

/// Shared state with one owner who may change it; everyone else sees it through `readOnly`.
@MainActor
public final class ObservableProperty<Value> {
    private var observers: [Int: (Value) -> Void] = [:]
    private var nextObserver = 0

    /// The current value; setting it tells every observer.
    public var value: Value {
        didSet {
            for observer in observers.values { observer(value) }
        }
    }

    /// Creates the state with a first value.
    public init(_ value: Value) { self.value = value }

    /// A read-only projection of this state, for features granted read access.
    public var readOnly: ObservableValue<Value> { ObservableValue(self) }

    /// Calls `onChange` with each new value until the returned observation ends.
    public func observe(_ onChange: @escaping (Value) -> Void) -> Observation {
        let id = nextObserver
        nextObserver += 1
        observers[id] = onChange
        return Observation { [weak self] in self?.observers[id] = nil }
    }
}

/// A read-only view of shared state: it can be read and observed, never written.
@MainActor
public final class ObservableValue<Value> {
    private let source: ObservableProperty<Value>

    init(_ source: ObservableProperty<Value>) { self.source = source }

    /// The current value.
    public var value: Value { source.value }

    /// Calls `onChange` with each new value until the returned observation ends.
    public func observe(_ onChange: @escaping (Value) -> Void) -> Observation { source.observe(onChange) }
}
