import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// The app as the front end sees it, recording the route on screen into the supervisor's state file at each
/// frame, so a restart after a crash can come back to it, with every library loaded so far (hot-swapped copies
/// too), so a crash in one is traced to its feature.
@MainActor
final class RecordingDriver: AppDriver {
    private let app: any AppDriver
    private let file: String
    private var libraries: [String: RecordedLibrary]
    /// Each feature's starting library: what a crash in any later copy of it turns off.
    private let startedFrom: [String: String]
    private var route = ""
    private var feature = ""
    /// Whether the file holds what this driver recorded (the first frame is always saved).
    private var saved = false

    init(_ app: any AppDriver, file: String, libraries: [String: RecordedLibrary]) {
        self.app = app
        self.file = file
        self.libraries = libraries
        startedFrom = Dictionary(
            libraries.values.map { ($0.feature, $0.library) }, uniquingKeysWith: { first, _ in first })
        record(app.frame)
    }

    var frame: Frame { app.frame }
    var hasQuit: Bool { app.hasQuit }
    var unsettledReason: String? { app.unsettledReason }
    func send(_ event: Event) { app.send(event) }
    func canRollBack(_ feature: String) -> Bool { app.canRollBack(feature) }

    var onUpdate: ((Frame, [Notice]) -> Void)? {
        get { app.onUpdate }
        set {
            app.onUpdate = { [weak self] frame, notices in
                // Drawn first, recorded after: the file is for a restart after a crash, the frame is what a person
                // waits for.
                newValue?(frame, notices)
                self?.record(frame)
            }
        }
    }

    /// Records a hot-swapped copy of `feature` before its code runs: a crash in it turns off the feature's library.
    func willSwap(_ feature: String, copy: String) {
        let path = RecordedState.canonicalPath(copy)
        libraries[path] = RecordedLibrary(feature: feature, library: startedFrom[feature] ?? path, swapped: true)
        save()
    }

    /// Saves the route on screen when it changed: most frames redraw the route already recorded.
    private func record(_ frame: Frame) {
        guard frame.route != route || frame.feature != feature || !saved else { return }
        route = frame.route
        feature = frame.feature
        save()
    }

    private func save() {
        RecordedState(route: route, feature: feature, libraries: libraries).save(file)
        saved = true
    }
}
