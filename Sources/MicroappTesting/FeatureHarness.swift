import Foundation
import MicroappSDK

/// Drives one feature's Root without the host: a back stack of the feature's own routes, actions sent the way
/// a person would, and a way to await the screens that asynchronous work produces.
///
/// Give it the feature's dependencies (its mocks, or a `TestDependencies` of a test's own services), act on the
/// screen, and await what asynchronous work draws; `clock:` takes a `TestClock` so waits end only when the test
/// advances it.
///
/// ```swift
/// @Test("Sign out calls the service and leaves navigation to the host")
/// @MainActor func signOut() async throws {
///     let harness = try FeatureHarness(
///         SettingsFeature.self, dependencies: TestDependencies(SettingsFeature.mocks()), open: "settings://home")
///     try harness.tap("sign-out")
///     let screen = try await harness.next { $0.state == .view }
///     #expect(screen.texts == ["Signed out"])
/// }
/// ```
@MainActor
public final class FeatureHarness: NavigationHost {
    /// The manifest of the feature under test.
    public let manifest: FeatureManifest
    /// The feature's live Root.
    public let root: any Root
    /// The locations shown so far, bottom first; the last one is on screen.
    public private(set) var backStack: [Location]
    /// URLs the feature pushed or opened that are not its own routes, in order; the host would route them.
    public private(set) var openedElsewhere: [String] = []
    /// How many times the feature asked for a redraw.
    public var invalidations: Int { redraws.count }
    private let routes: [(declaration: RouteDeclaration, pattern: RoutePattern)]
    private let redraws = RedrawSignal()

    /// Makes `feature`'s Root with `dependencies` and `clock`, restores `snapshot` if given, and shows `url`.
    public convenience init<F: Feature>(
        _ feature: F.Type, dependencies: TestDependencies, open url: String, restoring snapshot: Data? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        try self.init(
            manifest: F.manifest, dependencies: dependencies, open: url, restoring: snapshot, clock: clock,
            makeRoot: { try F.makeRoot($0) })
    }

    /// Makes a Root with `makeRoot` (a test's own configuration of the feature `manifest` describes), given a
    /// context over `dependencies` and `clock`; restores `snapshot` if given, and shows `url`.
    public init(
        manifest: FeatureManifest, dependencies: TestDependencies, open url: String, restoring snapshot: Data? = nil,
        clock: any Clock<Duration> = ContinuousClock(), makeRoot: (FeatureContext) throws -> any Root
    ) throws {
        self.manifest = manifest
        routes = try manifest.routes.map { ($0, try RoutePattern($0.pattern)) }
        let relay = HostRelay()
        let context = FeatureContext(
            manifest: manifest, source: dependencies, navigation: relay,
            invalidate: { [relay] in relay.harness?.redraws.fire() }, clock: clock)
        root = try makeRoot(context)
        backStack = []
        relay.harness = self
        guard let location = location(for: url) else {
            throw HarnessError("'\(url)' matches none of the routes of '\(manifest.id)': \(routeList)")
        }
        if let snapshot { try root.restore(from: snapshot) }
        show([location])
    }

    /// The location on top of the back stack.
    public var location: Location { backStack[backStack.count - 1] }

    /// The screen the feature draws for the location on top, as the host would draw it now.
    public var screen: Screen { root.screen(at: location) }

    /// Sends `action` to the Root as it is, without checking that the screen offers it.
    public func send(_ action: Action) { root.handle(action, at: location) }

    /// Goes back one screen, as the host's back key does; nothing happens on the first screen.
    public func back() { pop() }

    /// Shows `url` on top when it is one of the feature's routes; records it in `openedElsewhere` otherwise.
    public func push(_ url: String) {
        guard let location = location(for: url) else {
            openedElsewhere.append(url)
            return
        }
        show(backStack + [location])
    }

    /// Goes back one screen; the first screen stays.
    public func pop() {
        guard backStack.count > 1 else { return }
        show(Array(backStack.dropLast()))
    }

    /// Goes back to the first screen.
    public func popToRoot() {
        guard backStack.count > 1 else { return }
        show([backStack[0]])
    }

    /// Same as `push`: the harness has no route guards.
    public func open(_ url: String) { push(url) }

    private func show(_ stack: [Location]) {
        backStack = stack
        root.willShow(location)
    }

    private func location(for url: String) -> Location? {
        for route in routes {
            if let parameters = route.pattern.match(url) {
                return Location(url: url, pattern: route.declaration.pattern, parameters: parameters)
            }
        }
        return nil
    }

    private var routeList: String { routes.map(\.declaration.pattern).joined(separator: ", ") }
}

extension FeatureHarness {
    /// The current screen once `predicate` holds for it, checking now and after each redraw the feature asks
    /// for; throws with the last screen when `timeout` passes first.
    public func next(where predicate: (Screen) -> Bool, timeout: Duration = .seconds(30)) async throws -> Screen {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = screen
            if predicate(current) { return current }
            guard ContinuousClock.now < deadline else {
                throw HarnessError(
                    "no screen matched within \(timeout) (\(invalidations) redraws so far); the last one is below",
                    screen: current)
            }
            await redraws.wait(until: deadline)
        }
    }
}

/// The navigation host the feature's context holds: a weak way back to the harness, so the Root (which holds
/// the context) and the harness (which holds the Root) do not keep each other alive.
@MainActor
private final class HostRelay: NavigationHost {
    weak var harness: FeatureHarness?

    func push(_ url: String) { harness?.push(url) }
    func pop() { harness?.pop() }
    func popToRoot() { harness?.popToRoot() }
    func open(_ url: String) { harness?.open(url) }
}
