import MicroappPlatform

/// The isolated features of one run whose children are running: who `stopAll()` ends when the app quits and whose
/// starts `starts()` waits for. An instance owned by the run that composes them (its `IsolationLog`), never a static
/// registry: two runs in one process (tests, a host that runs twice) do not see each other's children.
@MainActor
public final class RunningFeatures {
    private var features: [ObjectIdentifier: IsolatedRoot] = [:]
    private var startWaiters: [CheckedContinuation<Void, Never>] = []

    /// An empty registry.
    public init() {}

    /// How many features' children are running.
    public var count: Int { features.count }

    /// Returns once every isolated feature that was started has answered its start (started or refused) or ended:
    /// what a child writes while it starts (solo's mocked session) has reached the host by then.
    public func starts() async {
        guard !allStartsAnswered else { return }
        await withCheckedContinuation { startWaiters.append($0) }
    }

    /// Ends every isolated feature's child and removes its private folder (the app is quitting).
    public func stopAll() {
        for feature in features.values { feature.stopForQuit() }
        features = [:]
        IsolatedChild.removePinned()
    }

    func add(_ feature: IsolatedRoot) { features[ObjectIdentifier(feature)] = feature }

    func remove(_ feature: IsolatedRoot) {
        features[ObjectIdentifier(feature)] = nil
        startAnswerArrived()
    }

    /// Lets the waiters of `starts()` go on once no start is unanswered.
    func startAnswerArrived() {
        guard allStartsAnswered else { return }
        let waiters = startWaiters
        startWaiters = []
        waiters.forEach { $0.resume() }
    }

    private var allStartsAnswered: Bool { features.values.allSatisfy(\.startIsAnswered) }
}
