import MicroappSDK

/// How many stops within how long turn a feature off: a feature that keeps dying is not offered Restart forever.
public struct StopLimit: Sendable, Equatable {
    /// Stops within `window` that turn the feature off (3: the third stop in the window does).
    public var stops: Int
    /// How far back stops count, on the host's clock.
    public var window: Duration

    /// Three stops within 30 seconds, unless told otherwise.
    public init(stops: Int = 3, window: Duration = .seconds(30)) {
        self.stops = stops
        self.window = window
    }
}

/// A feature whose process ended: why, and whether it is off for the rest of the run.
struct StoppedFeature {
    var stop: FeatureStop
    /// True after too many stops in a short time: its screens offer only Back.
    var isOff: Bool
}

extension AppRuntime {
    /// A feature's process ended: its screens become a stopped screen with Restart and Back, the services it provides
    /// fail with `feature-stopped`, and an error names the library, the cause and its last words. The other features
    /// and the back stack are untouched. Too many stops within `Options.stopLimit` turn the feature off.
    public func featureStopped(_ id: String, _ stop: FeatureStop) {
        guard let start = features[id]?.start else { return }
        featureStopped(id, stop, start: start)
    }

    /// The stop of the Root made by start `start`; a stop of an earlier start (swapped out since) is ignored.
    func featureStopped(_ id: String, _ stop: FeatureStop, start: Int) {
        guard let feature = features[id], feature.start == start, stopped[id] == nil else { return }
        let now = options.uptime()
        let recent = (stopTimes[id] ?? []).filter { now - $0 < options.stopLimit.window } + [now]
        stopTimes[id] = recent
        let isOff = recent.count >= options.stopLimit.stops
        stopped[id] = StoppedFeature(stop: stop, isOff: isOff)
        refuseServices(of: feature.manifest)
        // Named by id: the display name is the plugin's own words and may pass for another feature's.
        let name = id
        post(
            Notice(
                level: .error, code: stop.code, message: "\(name) stopped: \(stop.reason) — \(stop.library)",
                fix: isOff
                    ? "it is off for this run; fix it, rebuild and start the app again"
                    : "choose Restart on its screen to start it again; if it keeps stopping, fix it and rebuild",
                feature: id, detail: stop.stderrTail.isEmpty ? nil : stop.stderrTail))
        if isOff {
            let seconds = options.stopLimit.window.components.seconds
            post(
                Notice(
                    level: .error, code: .featureOff,
                    message: "\(name) is off: it stopped \(recent.count) times within \(seconds) s",
                    fix: "fix \(stop.library) and start the app again; the other features run on", feature: id))
        }
        scheduleUpdate()
        onFeatureStop?(id, stop)
    }

    /// True while `feature`'s process has ended and it has not been restarted.
    public func isStopped(_ feature: String) -> Bool { stopped[feature] != nil }

    /// Starts a stopped feature again: a new Root from the same version (a new child process), given the last state
    /// the old one kept. A feature that is off, or that fails to start, stays stopped and says why.
    public func restart(_ id: String) {
        guard let feature = features[id], let state = stopped[id] else { return }
        guard !state.isOff else {
            post(
                Notice(
                    level: .error, code: .featureOff, message: "\(feature.manifest.displayName) is off for this run",
                    fix: "fix \(state.stop.library) and start the app again", feature: id))
            return
        }
        guard let preparing = feature.version.factory as? any PreparingFactory else {
            return restarted(feature, replace(feature, with: feature.version, started: options.now()))
        }
        // Starting a child blocks for a fork and a copy: that part runs off the main actor, events wait for it.
        let work = "a restart of \(feature.manifest.displayName)"
        hold(work)
        Task {
            defer { release(work) }
            do {
                try await preparing.prepareStart()
            } catch {
                return restarted(
                    feature,
                    .failure(
                        Problem(
                            .startFailed, subject: id, reason: "its new process could not start: \(error)",
                            fix: "check that the feature host can start and the temporary folder is writable")))
            }
            // A second Restart (or a swap) got there first: the prepared child is not needed.
            guard stopped[id] != nil, features[id]?.start == feature.start else {
                return preparing.discardPreparedStart()
            }
            restarted(feature, replace(feature, with: feature.version, started: options.now()))
        }
    }

    private func restarted(_ feature: RunningFeature, _ result: Result<SwapResult, Problem>) {
        let id = feature.manifest.id
        switch result {
        case .success:
            post(
                Notice(
                    level: .info, code: .featureRestarted,
                    message: "\(id) restarted (v\(feature.version.number))", feature: id))
            showTop()
        case .failure(let problem):
            post(
                Notice(
                    level: .error, code: .restartFailed,
                    message: "\(id) could not restart: \(problem.reason); it stays stopped",
                    fix: problem.fix, feature: id))
        }
    }

    /// Restart and Back, the two things a stopped screen offers.
    func handleOnStoppedScreen(_ action: Action, of id: String) {
        switch action {
        case .tap(id: StoppedScreen.restart): restart(id)
        case .tap(id: StoppedScreen.back): goBack()
        default: break
        }
    }

    /// The frame of a stopped feature's route: what ended it, its last words, Restart (unless off) and Back.
    func stoppedFrame(_ feature: RunningFeature, _ state: StoppedFeature, at location: Location) -> Frame {
        Frame(
            feature: feature.manifest.id, featureName: feature.manifest.displayName, version: feature.version.number,
            route: location.url,
            screen: StoppedScreen.screen(name: feature.manifest.id, state: state))
    }

    /// Swaps each service `manifest` provides for one that fails with `feature-stopped`, so callers get an answer
    /// instead of waiting on a process that is gone. A restart hands out the real ones again.
    func refuseServices(of manifest: FeatureManifest, loaded: Bool = true) {
        for provision in manifest.provides {
            let error = ServiceError(
                code: "feature-stopped",
                message: loaded
                    ? "\(manifest.id) stopped, so '\(provision.key)' cannot answer; restart it from its screen"
                    : "\(manifest.id) could not be loaded, so '\(provision.key)' cannot answer")
            container.provide(
                provision.key, type: provision.type, service: ErasedService { _ in throw error }, by: manifest.id,
                summary: provision.summary, shape: provision.shape)
        }
    }
}

/// The screen shown in place of a stopped feature's screens.
enum StoppedScreen {
    /// The id of the Restart button.
    static let restart = "restart"
    /// The id of the Back button.
    static let back = "back"

    static func screen(name: String, state: StoppedFeature) -> Screen {
        let stop = state.stop
        var content: [Element] = [
            .text(Text(state.isOff ? "It stopped too often and is off for this run." : "The rest of the app runs on.")),
            .text(Text("Library: \(stop.library)", style: .caption)),
        ]
        if !stop.stderrTail.isEmpty {
            content.append(.text(Text("Its last lines:", style: .caption)))
            content += stop.stderrTail.map { .text(Text($0.sanitized, style: .caption)) }
        }
        if !state.isOff { content.append(.button(Button(id: restart, title: "Restart"))) }
        content.append(.button(Button(id: back, title: "Back")))
        let title = state.isOff ? "\(name) is off: \(stop.reason)" : "\(name) stopped: \(stop.reason)"
        return Screen(title: title, content: content)
    }
}
