import MicroappSDK

extension AppRuntime {
    /// Replaces `running` with `version` when the new Root answers later (an isolated feature's child), all or
    /// nothing: waits until the running Root answered every request in flight (so its snapshot holds them), does the
    /// blocking part of the start off the main actor, makes the new Root and gives it the running state, waits for it
    /// to answer its start, state and the screen on top, and only then puts it in place and ends the running one.
    /// Events that arrive meanwhile wait and go, in order, to whichever version runs once it is over.
    func replaceWhenReady(
        _ running: RunningFeature, with version: FeatureVersion, started: ContinuousClock.Instant
    ) async -> Result<SwapResult, Problem> {
        let id = running.manifest.id
        swapsUnderWay += 1
        defer { swapEnded() }
        await (running.root as? any SettlingRoot)?.settled()
        let preparing = version.factory as? any PreparingFactory
        if let preparing {
            do {
                try await preparing.prepareStart()
            } catch {
                return .failure(
                    Problem(
                        .startFailed, subject: id, reason: "the new version failed to start: \(error)",
                        fix: "check that the feature host can start and the temporary folder is writable"))
            }
        }
        guard isRunning(running) else {
            preparing?.discardPreparedStart()
            return .failure(changedMeanwhile(id))
        }
        let prepared: PreparedRoot
        switch prepareRoot(of: version) {
        case .success(let made): prepared = made
        case .failure(let problem): return .failure(problem)
        }
        let root = prepared.root as? any SettlingRoot
        let snapshot = running.root.snapshot()
        if let snapshot {
            do {
                try prepared.root.restore(from: snapshot)
            } catch {
                root?.retire()
                return .failure(
                    Problem(
                        .startFailed, subject: id, reason: "the new version could not take the state: \(error)",
                        fix: "make restore(from:) tolerate older snapshots"))
            }
        }
        let location: Location? = if case .feature(id, let location) = router.top { location } else { nil }
        if let problem = await root?.ready(showing: location) {
            root?.retire()
            return .failure(problem)
        }
        guard isRunning(running) else {
            root?.retire()
            return .failure(changedMeanwhile(id))
        }
        return .success(
            install(
                running, with: version, prepared: prepared, state: snapshot == nil ? .keepsNone : .kept,
                started: started))
    }

    /// True while `running` is the Root of its feature (not swapped, rolled back or restarted since).
    private func isRunning(_ running: RunningFeature) -> Bool {
        features[running.manifest.id]?.start == running.start
    }

    private func changedMeanwhile(_ id: String) -> Problem {
        Problem(
            .startFailed, subject: id, reason: "it changed while the new version started",
            fix: "save again to swap in the newest build")
    }

    /// Ends a swap's wait: once none is under way, the events that waited are handled in the order they came.
    private func swapEnded() {
        swapsUnderWay -= 1
        guard swapsUnderWay == 0 else { return }
        let events = queuedEvents
        queuedEvents = []
        events.forEach(send)
    }
}
