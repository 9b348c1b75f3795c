import MicroappSDK

// Features that start after the first frame (`Options.startsLater`): the one on screen starts first, with the
// providers of what it requires; the others once a frame without a loading screen was drawn, one after another; a
// route of one not started yet starts it at once. Their start is the same as any other's; one whose code turns out not
// to load (`FeatureEnvironment.failedToLoad`) leaves the app, reported as a load problem at start is.

extension AppRuntime {
    /// Starts the pending feature `id` now, the pending providers of what it requires first; nothing when it is not
    /// pending.
    func startPending(_ id: String) {
        guard let index = pendingStarts.firstIndex(where: { $0.manifest.id == id }) else { return }
        let source = pendingStarts.remove(at: index)
        startProviders(of: source.manifest)
        start(source)
    }

    /// Starts the pending features that provide what `manifest` requires (and theirs), in start order.
    func startProviders(of manifest: FeatureManifest) {
        let keys = Set(manifest.requirements.map(\.key))
        guard !keys.isEmpty else { return }
        for provider in pendingStarts where provider.manifest.provides.contains(where: { keys.contains($0.key) }) {
            startPending(provider.manifest.id)
        }
    }

    /// Once the feature on screen answered for the frame handed to the front end (its own screen, not the host's
    /// "Starting…"), starts the features still pending, in the background: the first frame waits for that one only.
    func startRemainingOnceDrawn() {
        guard !lateStartsBegun, !options.startsLater.isEmpty, onScreenHasAnswered else { return }
        lateStartsBegun = true
        Task { @MainActor [weak self] in await self?.startRemaining() }
    }

    /// Whether the feature on screen has nothing in flight (its screen came), or stopped; true on the host's screens.
    private var onScreenHasAnswered: Bool {
        guard case .feature(let id, _) = router.top, stopped[id] == nil,
            let root = features[id]?.root as? any SettlingRoot
        else { return true }
        return root.unsettledReason == nil
    }

    /// Starts each pending feature in turn (its blocking part, a child's fork, off the main actor), then waits until
    /// every feature answered its start and says so with a `ready` notice.
    private func startRemaining() async {
        while let source = pendingStarts.first, !hasQuit {
            let id = source.manifest.id
            switch source.register() {
            case .failure:
                // Reported by the start, as any registration's problem.
                startPending(id)
            case .success(let factory):
                if let preparing = factory as? any PreparingFactory { try? await preparing.prepareStart() }
                guard pendingStarts.first?.manifest.id == id else {
                    // Started meanwhile, when a person opened it: what was prepared for this start is not needed.
                    (factory as? any PreparingFactory)?.discardPreparedStart()
                    continue
                }
                pendingStarts.removeFirst()
                start(source, factory: factory)
            }
            scheduleUpdate()
        }
        for feature in features.values { await (feature.root as? any SettlingRoot)?.started() }
        guard !hasQuit else { return }
        post(
            Notice(
                level: .info, code: .ready,
                message: "every feature is ready (\(features.count) running)"))
    }

    /// Starts no more features late: the app is ending (what is being prepared for one is ended when it is ready).
    public func dropPendingStarts() { pendingStarts = [] }

    /// The feature of start `start` could not be loaded (`FeatureEnvironment.failedToLoad`): it leaves the app, the
    /// services it provides fail, its routes show the host's problem screen, and `problem` is reported.
    func featureFailedToLoad(_ id: String, _ problem: Problem, start: Int) {
        guard let feature = features[id], feature.start == start else { return }
        features[id] = nil
        (feature.root as? any SettlingRoot)?.retire()
        refuseServices(of: feature.manifest, loaded: false)
        startProblems.append(problem)
        post(problem.notice)
        showTop()
    }
}
