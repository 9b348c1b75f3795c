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
    /// How the app runs: the full app, one feature alone on its mocks, or a preview.
    public var mode: Mode
    /// In solo mode, the mocks that meet the feature's needs: `key=variant` for services, the key for state
    /// (`characters.page=default`, `characters.session`); empty otherwise.
    public var mocks: [String]
    /// Words the header adds after the mode (`alert · slow` for a preview); not part of the JSON line.
    public var modeDetail: String?
    /// How many screens are under this one on the back stack.
    public var depth: Int
    /// The app's tab bar: the running features' top-level entry points, empty while signed out.
    public var tabs: [Tab]
    /// Where the feature on screen runs (`process` or `none`); nil on the host's own screens and in previews.
    public var isolation: Isolation?
    /// Whose screen it is, as the host knows it (never as the feature says): the feature's id, its library and how
    /// far the host trusts it. Front ends mark an untrusted feature's screens with it. Nil on the host's own screens
    /// and in previews.
    public var origin: Origin?
    /// The app's name (`Hello App`), for the header; nil in a frame made outside an app (the header says `Microapps`).
    public var app: String?
    /// False when the app has no accounts (its container holds no session): front ends show no account words
    /// (`signed out`); nil when it has them.
    public var hasAccounts: Bool?

    /// Where the screen on top comes from. Its JSON form is
    /// `{"trust":"untrusted","feature":"lurker","library":"/home/me/plugins/libLurker.so"}`.
    public struct Origin: Codable, Sendable, Equatable {
        /// How far the host trusts the feature's library.
        public var trust: FeatureTrust
        /// The feature's id (`lurker`), not its display name.
        public var feature: String
        /// The library's path as the host found it (`linked …` for a type linked into the host).
        public var library: String

        /// Creates an origin.
        public init(trust: FeatureTrust, feature: String, library: String) {
            self.trust = trust
            self.feature = feature
            self.library = library
        }

        /// True when front ends must mark the screen: nobody vouched for the library.
        public var isUntrusted: Bool { trust == .untrusted }

        /// The folder the library is in (the whole `library` when it is not a path).
        public var folder: String {
            guard library.hasPrefix("/"), let slash = library.lastIndex(of: "/") else { return library }
            return slash == library.startIndex ? "/" : String(library[..<slash])
        }

        /// The host's words for an untrusted screen: `untrusted · lurker from /home/me/plugins`.
        public var mark: String { "untrusted · \(feature) from \(folder)" }
    }

    /// One tab of the tab bar. Its JSON form is `{"id":"tab.characters","title":…,"route":…,"selected":…,
    /// "origin":{"trust":"own","feature":"characters","library":…}}`.
    public struct Tab: Codable, Sendable, Equatable {
        /// `tab.<feature-id>`: a `tap` on it opens the tab.
        public var id: String
        /// The label (`Characters`).
        public var title: String
        /// The route it opens.
        public var route: String
        /// True for the tab of the feature on screen.
        public var selected: Bool
        /// Whose tab it is, as the host knows it (the frame's `origin` of the feature's screens): front ends mark an
        /// untrusted feature's tab with it. Nil when the host does not know the feature's library.
        public var origin: Origin?

        /// Creates a tab.
        public init(id: String, title: String, route: String, selected: Bool, origin: Origin? = nil) {
            self.id = id
            self.title = title
            self.route = route
            self.selected = selected
            self.origin = origin
        }

        /// `untrusted · lurker from /home/me/plugins` for an untrusted feature's tab, else nil.
        public var untrustedMark: String? { origin.flatMap { $0.isUntrusted ? $0.mark : nil } }
    }

    /// How an app runs, in frames as data: `"mode":"solo"`.
    public enum Mode: String, Codable, Sendable {
        /// The full app (`microapp run`).
        case run
        /// One feature alone, its needs met by its mocks (`microapp solo`).
        case solo
        /// A screen drawn from a feature's previews (`microapp preview`).
        case preview
    }

    // `modeDetail` is for the header only: JSON lines carry the mode as data.
    private enum CodingKeys: String, CodingKey {
        case feature, featureName, version, route, screen, account, mode, mocks, depth, tabs, isolation, origin, app
        case hasAccounts
    }

    /// Creates a frame.
    public init(
        feature: String, featureName: String, version: Int, route: String, screen: Screen, account: String? = nil,
        mode: Mode = .run, mocks: [String] = [], modeDetail: String? = nil, depth: Int = 0, tabs: [Tab] = []
    ) {
        self.feature = feature
        self.featureName = featureName
        self.version = version
        self.route = route
        self.screen = screen
        self.account = account
        self.mode = mode
        self.mocks = mocks
        self.modeDetail = modeDetail
        self.depth = depth
        self.tabs = tabs
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
    /// The feature a hot swap, rollback or build is about (`characters`), else nil.
    public var feature: String?
    /// The version that ran before a swap or rollback.
    public var from: Int?
    /// The version that runs after it.
    public var to: Int?
    /// How long the swap took, library ready to new frame (or how long a build took).
    public var milliseconds: Int?
    /// More lines for people, e.g. the first compiler errors of a failed build.
    public var detail: [String]?
    /// What became of the feature's state across a swap or rollback, else nil.
    public var state: SwapState?

    /// The code of a line an isolated feature printed (`{"type":"log"}` in JSON lines).
    public static let logCode = Problem.Code.log.rawValue

    /// True for news that a build or version now runs (`built`, `swapped`, `rolled-back`): a failed build's notice,
    /// kept on screen until then, goes.
    public var endsBuildFailure: Bool {
        level == .info && [Problem.Code.built, .swapped, .rolledBack].contains(Problem.Code(rawValue: code))
    }

    /// True for news of work still going on (`building`), not of something done.
    public var isProgress: Bool { level == .info && code == Problem.Code.building.rawValue }

    /// True for news meant for scripts (`ready`: every feature started after the first frame answered): the footer of
    /// the terminal and the browser page keep what they show (a redirect's reason) instead.
    public var isForScripts: Bool { code == Problem.Code.ready.rawValue }

    /// Creates a notice with one of the codes of the catalogue (`Problem+Codes.swift`).
    public init(
        level: Level, code: Problem.Code, message: String, fix: String? = nil, feature: String? = nil, from: Int? = nil,
        to: Int? = nil, milliseconds: Int? = nil, detail: [String]? = nil, state: SwapState? = nil
    ) {
        self.init(
            level: level, code: code.rawValue, message: message, fix: fix, feature: feature, from: from, to: to,
            milliseconds: milliseconds, detail: detail, state: state)
    }

    /// Creates a notice whose code was read as text (a child's line, a decoded frame).
    public init(
        level: Level, code: String, message: String, fix: String? = nil, feature: String? = nil, from: Int? = nil,
        to: Int? = nil, milliseconds: Int? = nil, detail: [String]? = nil, state: SwapState? = nil
    ) {
        self.level = level
        self.code = code
        self.message = message
        self.fix = fix
        self.feature = feature
        self.from = from
        self.to = to
        self.milliseconds = milliseconds
        self.detail = detail
        self.state = state
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
    /// Why the app has not settled (a loading screen, a pending redraw or swap), nil once it has: line front ends
    /// hold each input event until then.
    var unsettledReason: String? { get }
    /// True when `feature` has an earlier version a `rollback` event would go back to (after a hot swap).
    func canRollBack(_ feature: String) -> Bool
}

extension AppDriver {
    /// By default nothing can be rolled back.
    public func canRollBack(_ feature: String) -> Bool { false }

    /// By default the app has settled unless the screen is loading.
    public var unsettledReason: String? { frame.loadingReason }
}

extension Frame {
    /// `auth://sign-in is loading (“Signing in…”)` while the screen is loading, `search://home is busy (“Searching…”)`
    /// while its feature says work under way will change it, else nil.
    public var loadingReason: String? {
        if case .loading(let message) = screen.state { return "\(route) is loading (“\(message)”)" }
        return screen.busy.map { "\(route) is busy (“\($0)”)" }
    }
}
