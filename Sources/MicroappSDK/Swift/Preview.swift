/// The state a preview shows, named as `microapp preview --state` takes it.
@frozen public enum PreviewState: String, CaseIterable, Codable, Sendable {
    /// The content, ready to use.
    case view
    /// Work in progress.
    case loading
    /// A message over the content.
    case alert
    /// Something failed.
    case error

    /// The state `state` is in.
    public init(_ state: ScreenState) {
        switch state {
        case .view: self = .view
        case .loading: self = .loading
        case .alert: self = .alert
        case .error: self = .error
        }
    }
}

/// One screen of a feature in one state, drawn without running the app (`microapp preview`, golden tests).
/// A feature returns them from `previews()`, usually made with `RootDriver` over its own mocks.
///
/// ```swift
/// extension AuthFeature {
///     @MainActor public static func previews() async throws -> [ScreenPreview] {
///         let signIn = try RootDriver(Self.self, open: "auth://sign-in")
///         var previews = [signIn.preview()]                      // view
///         try signIn.send(.tap(id: "submit"))
///         try await signIn.next(.alert)
///         previews.append(signIn.preview())                       // alert
///         return previews
///     }
/// }
/// ```
public struct ScreenPreview: Sendable, Equatable {
    /// The route URL the screen stands for (`characters://detail/2`).
    public var route: String
    /// Tells previews of one route in one state apart (`field errors`); nil for the only one.
    public var variant: String?
    /// The screen as the feature draws it.
    public var screen: Screen
    /// The mock variants it was reached on, by service key id (`auth.sign-in` → `failing`); empty for the defaults.
    /// Added in SDK 1.2: `microapp solo --mock` opens the screen live on the same ones.
    public var mocks: [String: String] = [:]

    /// A preview of `screen` at `route`.
    public init(_ route: String, variant: String? = nil, _ screen: Screen) {
        self.route = route
        self.variant = variant
        self.screen = screen
    }

    /// A preview of `screen` at `route`, reached on the mock variants `mocks` (added in SDK 1.2).
    public init(_ route: String, variant: String? = nil, mocks: [String: String], _ screen: Screen) {
        self.init(route, variant: variant, screen)
        self.mocks = mocks
    }

    /// The state the screen is in.
    public var state: PreviewState { PreviewState(screen.state) }
}
