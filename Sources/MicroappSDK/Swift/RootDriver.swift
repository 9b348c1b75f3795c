import Foundation

/// Drives one feature's Root without the host, the one way previews, tests and the probe do it: the Root is made
/// with dependencies (the feature's own mocks, a test's values, or any source) and a clock; a back stack holds the
/// feature's own routes; actions go in only when a person could do them on the screen as drawn
/// (`Screen.refusal(of:)`, the host's rule); `next` awaits the screens asynchronous work leads to.
///
/// ```swift
/// let signIn = try RootDriver(AuthFeature.self, open: "auth://sign-in")
/// try signIn.send(.tap(id: "submit"))
/// previews.append(signIn.preview("field errors"))
/// ```
@MainActor
public final class RootDriver {
    /// Why the driver could not do what it was asked, with the screen it was looking at.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var reason: String
        /// How to put it right, when the driver knows.
        public var fix: String?
        /// The screen on top when it went wrong, if there was one.
        public var screen: Screen?

        /// Creates a failure.
        public init(_ reason: String, fix: String? = nil, screen: Screen? = nil) {
            self.reason = reason
            self.fix = fix
            self.screen = screen
        }

        /// The reason, the fix, then the screen as indented JSON.
        public var description: String {
            let text = reason + (fix.map { "; to fix: \($0)" } ?? "")
            guard let screen else { return text }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let json = (try? encoder.encode(screen)).map { String(decoding: $0, as: UTF8.self) } ?? "\(screen)"
            return "\(text)\nscreen:\n\(json)"
        }
    }

    /// The manifest of the feature driven.
    public let manifest: FeatureManifest
    /// The feature's live Root.
    public let root: any Root
    /// The locations shown so far, bottom first; the last one is on screen.
    public private(set) var backStack: [Location] = []
    /// URLs the feature pushed or opened that are not its own routes, in order; the host would route them.
    public private(set) var openedElsewhere: [String] = []
    /// How many times the feature asked for a redraw.
    public var invalidations: Int { redraws.count }
    /// The mock variants chosen by key id when the driver was made on the feature's mocks; what previews carry.
    private var mockChoices: [String: String] = [:]
    private let routes: [(pattern: RoutePattern, declaration: String)]
    private let redraws = RedrawSignal()

    /// Makes `feature`'s Root on its own mocks (each service in its `default` variant unless `choices` names
    /// another by key id), restores `snapshot` if given, and shows `url`; waits run on `clock` (by default none
    /// is waited for: `ImmediateClock`). Throws when a choice is not one of the mocks.
    public convenience init<F: Feature>(
        _ feature: F.Type, open url: String, mocks choices: [String: String] = [:], restoring snapshot: Data? = nil,
        clock: any Clock<Duration> = ImmediateClock()
    ) throws(Failure) {
        let dependencies: DependencyValues
        do {
            dependencies = try DependencyValues(F.mocks(), choosing: choices)
        } catch {
            throw Failure("the mocks of \(F.manifest.id): \(error.reason)", fix: error.fix)
        }
        try self.init(
            manifest: F.manifest, dependencies: dependencies, open: url, restoring: snapshot, clock: clock,
            makeRoot: { try F.makeRoot($0) })
        mockChoices = choices
    }

    /// Makes `feature`'s Root with `dependencies` and `clock`, restores `snapshot` if given, and shows `url`.
    public convenience init<F: Feature>(
        _ feature: F.Type, dependencies: any DependencySource, open url: String, restoring snapshot: Data? = nil,
        clock: any Clock<Duration> = ImmediateClock()
    ) throws(Failure) {
        try self.init(
            manifest: F.manifest, dependencies: dependencies, open: url, restoring: snapshot, clock: clock,
            makeRoot: { try F.makeRoot($0) })
    }

    /// Makes a Root with `makeRoot` (a test's own configuration of the feature `manifest` describes), given a
    /// context over `dependencies` and `clock`; restores `snapshot` if given, and shows `url`.
    public init(
        manifest: FeatureManifest, dependencies: any DependencySource, open url: String,
        restoring snapshot: Data? = nil,
        clock: any Clock<Duration> = ImmediateClock(), makeRoot: (FeatureContext) throws -> any Root
    ) throws(Failure) {
        self.manifest = manifest
        var routes: [(pattern: RoutePattern, declaration: String)] = []
        for declaration in manifest.routes {
            do throws(RouteError) {
                routes.append((try RoutePattern(declaration.pattern), declaration.pattern))
            } catch {
                throw Failure(
                    "route \(declaration.pattern) of \(manifest.id) is malformed: \(error.reason)",
                    fix: "declare it as scheme://path, e.g. \(manifest.id)://home")
            }
        }
        self.routes = routes
        let relay = Relay()
        let context = FeatureContext(
            manifest: manifest, source: dependencies, navigation: relay,
            invalidate: { [relay] in relay.driver?.redraws.fire() }, clock: clock)
        do {
            root = try makeRoot(context)
        } catch {
            throw Failure(
                "\(manifest.id) did not make its Root: \(error)",
                fix: "give it every dependency its manifest requires (its mocks, or the test's own)")
        }
        relay.driver = self
        guard let location = location(for: url) else {
            throw Failure(
                "'\(url)' matches none of the routes of '\(manifest.id)': \(routes.map(\.declaration).joined(separator: ", "))",
                fix: "open one of its routes")
        }
        if let snapshot {
            do {
                try root.restore(from: snapshot)
            } catch {
                throw Failure("\(manifest.id) did not restore the snapshot: \(error)", fix: "pass one its Root wrote")
            }
        }
        show([location])
    }

    /// The location on top of the back stack.
    public var location: Location { backStack[backStack.count - 1] }

    /// The screen the feature draws for the location on top, as the host would draw it now.
    public var screen: Screen { root.screen(at: location) }

    /// Sends `action` when a person could do it on the screen as drawn now (the host's rule), else throws why not.
    public func send(_ action: Action) throws(Failure) {
        let current = screen
        if let reason = current.refusal(of: action) {
            throw Failure(
                "\(reason) (\(location.url))", fix: "act on an element the screen shows (below)", screen: current)
        }
        root.handle(action, at: location)
    }

    /// Goes back one screen, as the host's back key does; nothing happens on the first screen.
    public func back() { pop() }

    /// Shows `url` on top when it is one of the feature's routes; records it in `openedElsewhere` otherwise (the
    /// driver has no router and no guards).
    public func open(_ url: String) {
        guard let location = location(for: url) else {
            openedElsewhere.append(url)
            return
        }
        show(backStack + [location])
    }

    /// The screen on top now, as a preview (with `variant` to tell it from others of its route and state).
    public func preview(_ variant: String? = nil) -> ScreenPreview {
        ScreenPreview(location.url, variant: variant, mocks: mockChoices, screen)
    }

    /// The current screen once `predicate` holds for it, checking now and after each redraw the feature asks
    /// for; throws with the last screen when `timeout` (a generous limit, not a measurement) passes first.
    @discardableResult
    public func next(where predicate: (Screen) -> Bool, timeout: Duration = .seconds(30)) async throws(Failure)
        -> Screen
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = screen
            if predicate(current) { return current }
            guard ContinuousClock.now < deadline else {
                throw Failure(
                    "no screen as expected at \(location.url) within \(timeout) (\(invalidations) redraws so far)",
                    fix: "check that the feature calls context.invalidate() after its work; the last screen is below",
                    screen: current)
            }
            await redraws.wait(until: deadline)
        }
    }

    /// The current screen once it is in `state` (`.alert`, `.error`…).
    @discardableResult
    public func next(_ state: PreviewState, timeout: Duration = .seconds(30)) async throws(Failure) -> Screen {
        try await next(where: { PreviewState($0.state) == state }, timeout: timeout)
    }

    fileprivate func pop() {
        guard backStack.count > 1 else { return }
        show(Array(backStack.dropLast()))
    }

    fileprivate func popToRoot() {
        guard backStack.count > 1 else { return }
        show([backStack[0]])
    }

    private func show(_ stack: [Location]) {
        backStack = stack
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

/// The navigation host the feature's context holds: a weak way back to the driver, so the Root (which holds the
/// context) and the driver (which holds the Root) do not keep each other alive.
@MainActor
private final class Relay: NavigationHost {
    weak var driver: RootDriver?

    func push(_ url: String) { driver?.open(url) }
    func pop() { driver?.pop() }
    func popToRoot() { driver?.popToRoot() }
    func open(_ url: String) { driver?.open(url) }
}
