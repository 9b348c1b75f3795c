import MicroappHost
import MicroappSDK

/// The app as the front end sees it, recording the route on screen into the supervisor's state file at each
/// frame, so a restart after a crash can come back to it.
@MainActor
final class RecordingDriver: AppDriver {
    private let app: any AppDriver
    private let file: String
    private let libraries: [String: String]

    init(_ app: any AppDriver, file: String, libraries: [String: String]) {
        self.app = app
        self.file = file
        self.libraries = libraries
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
                self?.record(frame)
                newValue?(frame, notices)
            }
        }
    }

    private func record(_ frame: Frame) {
        RecordedState(route: frame.route, feature: frame.feature, libraries: libraries).save(file)
    }
}
