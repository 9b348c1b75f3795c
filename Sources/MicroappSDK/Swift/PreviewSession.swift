/// Drives a feature's Root over the feature's own mocks, so its previews show the screens it really draws: open
/// a route, act as a person would, and capture the screen in each state it reaches. It needs no host, so a
/// feature uses it in `previews()`:
///
/// ```swift
/// let signIn = try PreviewSession(AuthFeature.self, open: "auth://sign-in")
/// signIn.send(.tap(id: "submit"))
/// previews.append(signIn.preview("field errors"))
/// ```
@MainActor
public final class PreviewSession {
    /// Why a preview could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var description: String

        /// Creates a failure.
        public init(_ description: String) { self.description = description }
    }

    private let root: any Root
    private let routes: [(pattern: RoutePattern, declaration: String)]
    private var stack: [Location] = []
    private let redraws = RedrawSignal()

    /// Makes `feature`'s Root with its mocks (each service in its `default` variant unless `variants` names
    /// another by key id) and shows `url`; the feature's clock skips every wait (`ImmediateClock`).
    public init<F: Feature>(_ feature: F.Type, open url: String, variants: [String: String] = [:]) throws {
        let mocks = F.mocks()
        var values: [String: Any] = [:]
        for (key, variant) in variants where mocks.services[key]?.variants[variant] == nil {
            let known = mocks.services[key].map { $0.variants.keys.sorted().joined(separator: ", ") }
            throw Failure(
                known.map { "\(key) has no mock variant '\(variant)' (it has \($0))" }
                    ?? "\(F.manifest.id) has no mocked service '\(key)'")
        }
        for (key, mock) in mocks.services { values[key] = mock.variants[variants[key] ?? "default"] }
        routes = try F.manifest.routes.map { declaration throws -> (RoutePattern, String) in
            do throws(RouteError) {
                return (try RoutePattern(declaration.pattern), declaration.pattern)
            } catch {
                throw Failure("route \(declaration.pattern) is malformed: \(error.reason)")
            }
        }
        let relay = Relay()
        let context = FeatureContext(
            manifest: F.manifest, source: MockValues(values, mocks: mocks), navigation: relay,
            invalidate: { [relay] in relay.session?.redraws.fire() }, clock: ImmediateClock())
        root = try F.makeRoot(context)
        relay.session = self
        guard let location = location(for: url) else {
            throw Failure("\(url) matches none of the routes of \(F.manifest.id)")
        }
        show(location)
    }

    /// The location on screen.
    public var location: Location { stack[stack.count - 1] }

    /// The screen the feature draws now.
    public var screen: Screen { root.screen(at: location) }

    /// Sends `action` to the Root, as a person's tap, edit or choice on the screen.
    public func send(_ action: Action) { root.handle(action, at: location) }

    /// The screen on top now, as a preview (with `variant` to tell it from others of its route and state).
    public func preview(_ variant: String? = nil) -> ScreenPreview {
        ScreenPreview(location.url, variant: variant, screen)
    }

    /// Waits for the screen to satisfy `predicate`, checking now and after each redraw the feature asks for;
    /// throws when `timeout` passes first.
    @discardableResult
    public func next(where predicate: (Screen) -> Bool, timeout: Duration = .seconds(2)) async throws -> Screen {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = screen
            if predicate(current) { return current }
            guard ContinuousClock.now < deadline else {
                throw Failure("no screen as expected at \(location.url) within \(timeout); it shows '\(current.title)'")
            }
            await redraws.wait(until: deadline)
        }
    }

    /// Waits for the screen to reach `state` (`.alert`, `.error`…).
    @discardableResult
    public func next(_ state: PreviewState, timeout: Duration = .seconds(2)) async throws -> Screen {
        try await next(where: { PreviewState($0.state) == state }, timeout: timeout)
    }

    fileprivate func push(_ url: String) {
        guard let location = location(for: url) else { return }
        show(location)
    }

    fileprivate func pop() {
        guard stack.count > 1 else { return }
        stack.removeLast()
        root.willShow(location)
    }

    fileprivate func popToRoot() {
        guard stack.count > 1 else { return }
        stack = [stack[0]]
        root.willShow(location)
    }

    private func show(_ location: Location) {
        stack.append(location)
        root.willShow(location)
    }

    private func location(for url: String) -> Location? {
        for route in routes {
            if let parameters = route.pattern.match(url) {
                return Location(url: url, pattern: route.declaration, parameters: parameters)
            }
        }
        return nil
    }
}

/// The mocks as the feature's dependencies: services by key id, state as granted for the access asked.
@MainActor
private final class MockValues: DependencySource {
    private let values: [String: Any]
    private let mocks: Mocks

    init(_ values: [String: Any], mocks: Mocks) {
        self.values = values
        self.mocks = mocks
    }

    func value(for requirement: Requirement) -> Any? {
        values[requirement.key] ?? mocks.grant(requirement.key, access: requirement.access)
    }
}

/// The back stack a previewed feature sees; routes of other features go nowhere. Weak, so the Root (which holds
/// the context) and the session (which holds the Root) do not keep each other alive.
@MainActor
private final class Relay: NavigationHost {
    weak var session: PreviewSession?

    func push(_ url: String) { session?.push(url) }
    func pop() { session?.pop() }
    func popToRoot() { session?.popToRoot() }
    func open(_ url: String) { session?.push(url) }
}
