import Foundation
import MicroappSDK

/// What became of a feature's state across a hot swap or rollback (`"state"` in a JSON `notice` line).
public enum SwapState: String, Codable, Sendable {
    /// The running Root's snapshot was restored into the new one.
    case kept
    /// The new version refused the snapshot (`restore(from:)` threw): its screens started fresh.
    case reset
    /// The running Root keeps no state (`snapshot()` is nil): there was nothing to carry, its screens started fresh.
    case keepsNone = "none"
}

/// What a hot swap or rollback did.
public struct SwapResult: Sendable, Equatable {
    /// The feature's id.
    public var feature: String
    /// The version number that ran before.
    public var from: Int
    /// The version number that runs now.
    public var to: Int
    /// What became of the running Root's state.
    public var state: SwapState
    /// Library ready to new Root with its state, in milliseconds.
    public var milliseconds: Int

    /// True when the running Root's state was restored into the new one.
    public var stateKept: Bool { state == .kept }
}

/// A swap checked and registered, not yet made.
@MainActor
struct PendingSwap {
    let running: AppRuntime.RunningFeature
    let version: AppRuntime.FeatureVersion
}

extension AppRuntime {
    /// True when `feature` has an earlier working version to go back to.
    public func canRollBack(_ feature: String) -> Bool { !(previousVersions[feature] ?? []).isEmpty }

    /// The version number `feature` runs at now, nil when it does not run.
    public func version(of feature: String) -> Int? { features[feature]?.version.number }

    /// The checks of a swap (the feature runs, its id and routes are kept) and the new version registered.
    private func prepareSwap(_ id: String, to source: FeatureSource) -> Result<PendingSwap, Problem> {
        guard let running = features[id] else {
            return .failure(
                Problem(
                    .notFound, subject: id, reason: "no running feature has the id '\(id)'",
                    fix: "swap a new build of a feature that runs (see `microapp routes`)"))
        }
        let manifest = source.manifest
        guard manifest.id == id else {
            return .failure(
                Problem(
                    .badManifest, subject: source.origin,
                    reason: "its manifest id changed from '\(id)' to '\(manifest.id)'",
                    fix: "keep the id '\(id)', or restart the host to load it as another feature"))
        }
        guard manifest.routes == running.manifest.routes else {
            return .failure(
                Problem(
                    .routeConflict, subject: source.origin,
                    reason: "its routes changed, and routes are fixed while running",
                    fix: "restart the host to pick up the new routes"))
        }
        let factory: any FeatureFactory
        switch source.register() {
        case .success(let registered): factory = registered
        case .failure(let problem): return .failure(problem)
        }
        let number = max(manifest.version, newestVersion(of: id) + 1)
        let version = FeatureVersion(manifest: manifest, factory: factory, number: number)
        return .success(PendingSwap(running: running, version: version))
    }

    /// Replaces running feature `id` with the code of `source` between two events: registers it, makes its Root on the
    /// same container, moves each live Root's state across as bytes (`snapshot()` → `restore(from:)`) and shows the
    /// screen on top again. Any failure leaves the running version in place and returns why. `started` is when the
    /// library was ready, for the reported milliseconds.
    @discardableResult
    public func swap(
        _ id: String, to source: FeatureSource, since started: ContinuousClock.Instant? = nil
    ) -> Result<SwapResult, Problem> {
        prepareSwap(id, to: source).flatMap { pending in
            replace(pending.running, with: pending.version, started: started ?? options.now()).map { result in
                swapped(pending, result)
            }
        }
    }

    /// Replaces running feature `id` with the code of `source` whose Root answers later (an isolated feature's new
    /// child): see `replaceWhenReady`. Any failure leaves the running version in place and returns why.
    public func swapWhenReady(
        _ id: String, to source: FeatureSource, since started: ContinuousClock.Instant? = nil
    ) async -> Result<SwapResult, Problem> {
        switch prepareSwap(id, to: source) {
        case .failure(let problem): return .failure(problem)
        case .success(let pending):
            let started = started ?? options.now()
            return await replaceWhenReady(pending.running, with: pending.version, started: started).map { result in
                swapped(pending, result)
            }
        }
    }

    private func swapped(_ pending: PendingSwap, _ result: SwapResult) -> SwapResult {
        let id = pending.version.manifest.id
        previousVersions[id, default: []].append(pending.running.version)
        newestVersions[id] = pending.version.number
        post(swapNotice(result, verb: "swapped"))
        return result
    }

    /// Goes back to the previous working version of `feature` (its image is still loaded) with the current state. All
    /// or nothing: when the previous version cannot start again, the version on screen stays as it was and the error
    /// says so. A version whose Root answers later (an isolated feature) starts in the background; events wait for it.
    public func rollback(_ feature: String) {
        guard let (running, previous) = rollbackTarget(feature) else { return }
        guard startsLater(running, previous) else {
            return rolledBack(running, to: previous, replace(running, with: previous, started: options.now()))
        }
        let work = "a rollback of \(feature)"
        hold(work)
        Task {
            rolledBack(running, to: previous, await replaceWhenReady(running, with: previous, started: options.now()))
            release(work)
        }
    }

    /// Goes back as `rollback(_:)` does (the same notices), and answers once it is over: what the canary of a live
    /// update waits for before it marks the version it left bad.
    @discardableResult
    public func rollingBack(_ feature: String) async -> Result<SwapResult, Problem> {
        guard let (running, previous) = rollbackTarget(feature) else {
            return .failure(
                Problem(
                    code: .noPreviousVersion, subject: feature, reason: "it has no previous version to go back to",
                    fix: "rollback works after a swap"))
        }
        let result =
            startsLater(running, previous)
            ? await replaceWhenReady(running, with: previous, started: options.now())
            : replace(running, with: previous, started: options.now())
        rolledBack(running, to: previous, result)
        return result
    }

    /// The running version of `feature` and the one before it; nil (and an error notice) when there is none.
    private func rollbackTarget(_ feature: String) -> (RunningFeature, FeatureVersion)? {
        guard let running = features[feature], let previous = previousVersions[feature]?.last else {
            post(
                Notice(
                    level: .error, code: .noPreviousVersion,
                    message: "\(feature) has no previous version to go back to",
                    fix: "rollback works after a hot swap (`microapp run --watch`)", feature: feature))
            return nil
        }
        return (running, previous)
    }

    /// Whether going from `running` to `previous` waits for a Root that answers later (an isolated feature).
    private func startsLater(_ running: RunningFeature, _ previous: FeatureVersion) -> Bool {
        running.root is any SettlingRoot || previous.factory is any PreparingFactory
    }

    private func rolledBack(
        _ running: RunningFeature, to previous: FeatureVersion, _ result: Result<SwapResult, Problem>
    ) {
        let id = running.manifest.id
        switch result {
        case .failure(let problem):
            rollbackFailed(id, named: running.manifest.displayName, to: previous.number, problem)
        case .success(let result):
            previousVersions[id]?.removeLast()
            post(swapNotice(result, verb: "rolled back"))
        }
    }

    /// Says `rollback-failed`: `feature` (called `name`, `why` when given) could not go back to `version` because of
    /// `problem`, and what of it runs now.
    public func rollbackFailed(
        _ feature: String, named name: String? = nil, why: String? = nil, to version: Int, _ problem: Problem
    ) {
        let now = features[feature]?.version.number
        let state = "\(now.map { "v\($0)" } ?? "it") " + (stopped[feature] == nil ? "keeps running" : "stays stopped")
        post(
            Notice(
                level: .error, code: .rollbackFailed,
                message:
                    "\(name ?? feature)\(why.map { " \($0) and" } ?? "") could not roll back to v\(version): "
                    + "\(problem.reason); \(state)",
                fix: problem.fix, feature: feature))
    }

    /// Makes the Root of `version`, restores the running Root's state into it and puts it in place. All or nothing:
    /// until the new Root is complete, nothing changes (not even the services the container hands out) and nothing
    /// is posted. A stopped feature runs again once its new Root is in place.
    func replace(
        _ running: RunningFeature, with version: FeatureVersion, started: ContinuousClock.Instant
    ) -> Result<SwapResult, Problem> {
        let id = running.manifest.id
        var prepared: PreparedRoot
        switch prepareRoot(of: version) {
        case .success(let made): prepared = made
        case .failure(let problem): return .failure(problem)
        }
        var state = SwapState.keepsNone
        if let snapshot = running.root.snapshot() {
            state = .kept
            do {
                try prepared.root.restore(from: snapshot)
            } catch {
                // A half-restored Root is worse than a fresh one: start over, and say so. A version that cannot
                // start over is not swapped in at all (keeping the half-restored Root would run on broken state).
                switch prepareRoot(of: version) {
                case .success(let fresh): prepared = fresh
                case .failure(let problem): return .failure(problem)
                }
                state = .reset
                post(
                    Notice(
                        level: .error, code: .stateReset,
                        message:
                            "\(running.manifest.displayName) v\(version.number) could not take the state: \(error)",
                        fix: "its screens started fresh; make restore(from:) tolerate older snapshots", feature: id))
            }
        }
        return .success(install(running, with: version, prepared: prepared, state: state, started: started))
    }

    /// Puts `prepared` in place of `running` and ends the running Root's process, if it has one.
    func install(
        _ running: RunningFeature, with version: FeatureVersion, prepared: PreparedRoot, state: SwapState,
        started: ContinuousClock.Instant
    ) -> SwapResult {
        let id = running.manifest.id
        publish(prepared)
        let root = prepared.root
        features[id] = RunningFeature(
            manifest: version.manifest, root: root, version: version, start: prepared.start)
        stopped[id] = nil
        (running.root as? any SettlingRoot)?.retire()
        if case .feature(id, let location) = router.top { root.willShow(location) }
        scheduleUpdate()
        let elapsed = options.now() - started
        let milliseconds = Int(elapsed.wholeMilliseconds)
        return SwapResult(
            feature: id, from: running.version.number, to: version.number, state: state, milliseconds: milliseconds)
    }

    /// A new Root of `version` (its services not handed out yet), or why it could not be made.
    func prepareRoot(of version: FeatureVersion) -> Result<PreparedRoot, Problem> {
        do {
            return .success(try prepareRoot(version))
        } catch {
            return .failure(
                Problem(
                    .startFailed, subject: version.manifest.id, reason: "the new version failed to start: \(error)",
                    fix: "fix the feature's makeRoot/provide; the running version stays"))
        }
    }

    private func newestVersion(of id: String) -> Int {
        max(newestVersions[id] ?? 0, features[id]?.version.number ?? 0)
    }

    /// `Profile swapped v1 → v2 in 26 ms (state kept)`, with what became of the state: kept, reset (the new version
    /// refused it) or none kept (its Root has no `snapshot()`: the fix says how to keep it).
    private func swapNotice(_ result: SwapResult, verb: String) -> Notice {
        let name = features[result.feature]?.manifest.displayName ?? result.feature
        let state: String
        var fix: String?
        switch result.state {
        case .kept: state = "state kept"
        case .reset: state = "state reset: v\(result.to) refused v\(result.from)'s state"
        case .keepsNone:
            state = "keeps no state"
            fix = "to keep it across swaps, give its Root snapshot() and restore(from:)"
        }
        return Notice(
            level: .info, code: verb == "swapped" ? .swapped : .rolledBack,
            message: "\(name) \(verb) v\(result.from) → v\(result.to) in \(result.milliseconds) ms (\(state))",
            fix: fix, feature: result.feature, from: result.from, to: result.to, milliseconds: result.milliseconds,
            state: result.state)
    }
}
