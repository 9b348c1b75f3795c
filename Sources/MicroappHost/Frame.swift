import MicroappSDK

/// One drawn state of the app: the screen on top of the back stack and what the chrome around it shows.
/// Its JSON form is the `{"type":"frame",…}` line of `--ui json`.
public struct Frame: Codable, Sendable, Equatable {
    /// Id of the feature on screen (`auth`).
    public var feature: String
    /// Its display name (`Auth`).
    public var featureName: String
    /// Its version.
    public var version: Int
    /// The URL on top of the back stack.
    public var route: String
    /// The feature's screen.
    public var screen: Screen
    /// Who is signed in (`rick@example.com`), nil when signed out.
    public var account: String?
    /// `solo · mocks` in microapp mode, nil in the full app.
    public var mode: String?
    /// How many screens are under this one on the back stack.
    public var depth: Int

    /// Creates a frame.
    public init(
        feature: String, featureName: String, version: Int, route: String, screen: Screen, account: String? = nil,
        mode: String? = nil, depth: Int = 0
    ) {
        self.feature = feature
        self.featureName = featureName
        self.version = version
        self.route = route
        self.screen = screen
        self.account = account
        self.mode = mode
        self.depth = depth
    }
}

/// A one-line message for people beside the frame: swaps, redirects, problems. `--ui json` writes it as
/// `{"type":"notice",…}` or, for problems, `{"type":"error",…}`.
public struct Notice: Codable, Sendable, Equatable {
    /// How to show it.
    public enum Level: String, Codable, Sendable {
        /// Information (a redirect, a swap).
        case info
        /// Something is wrong, the app goes on.
        case error
    }
    /// How to show it.
    public var level: Level
    /// A stable machine-readable code (`redirect`, `unknown-route`).
    public var code: String
    /// The text for people.
    public var message: String
    /// What to do, for errors.
    public var fix: String?

    /// Creates a notice.
    public init(level: Level, code: String, message: String, fix: String? = nil) {
        self.level = level
        self.code = code
        self.message = message
        self.fix = fix
    }
}

/// What front ends drive: the current frame, a way to send events, and a callback when it changes.
@MainActor
public protocol AppDriver: AnyObject {
    /// The frame to draw now.
    var frame: Frame { get }
    /// Handles one event from the front end (tap, input, back, open, quit…).
    func send(_ event: Event)
    /// Called after the frame changed or a notice was posted; set once by the front end.
    var onUpdate: ((Frame, [Notice]) -> Void)? { get set }
    /// True once a `quit` event was handled.
    var hasQuit: Bool { get }
}
