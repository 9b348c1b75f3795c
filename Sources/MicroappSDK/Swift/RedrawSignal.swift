/// Lets headless drivers of a Root (previews, tests) await the redraws a feature asks for with
/// `context.invalidate()`.
@MainActor
public final class RedrawSignal {
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    /// How many redraws were asked for so far.
    public private(set) var count = 0

    /// A signal no one waits on yet.
    public init() {}

    /// Wakes everyone waiting: the feature asked for a redraw.
    public func fire() {
        count += 1
        let resumed = waiters
        waiters = [:]
        for waiter in resumed.values { waiter.resume() }
    }

    /// Returns at the next redraw, or at `deadline`, whichever comes first.
    public func wait(until deadline: ContinuousClock.Instant) async {
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { @MainActor [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.waiters.removeValue(forKey: id)?.resume()
        }
        await withCheckedContinuation { waiters[id] = $0 }
        timer.cancel()
    }
}
