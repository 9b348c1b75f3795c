import MicroappSDK

/// One screen on the back stack: a feature's location, or a host screen explaining a route that cannot open.
public enum StackEntry: Sendable, Equatable {
    /// A location of a running feature.
    case feature(String, Location)
    /// A route that could not be opened, and why.
    case problem(url: String, Problem)
    /// In solo, a route into `feature`, which is not loaded: a host screen saying where it would go.
    case stub(url: String, feature: String)

    /// The URL shown in the footer.
    public var url: String {
        switch self {
        case .feature(_, let location): location.url
        case .problem(let url, _): url
        case .stub(let url, _): url
        }
    }

    /// The feature on screen, or nil for a host screen (problem or stub).
    public var feature: String? {
        if case .feature(let id, _) = self { return id }
        return nil
    }
}

/// One back stack across all features, with guards: a route that needs a session sends a signed-out person to
/// sign-in and continues to the route afterwards. Pure logic, no features: the runtime acts on what it returns.
///
/// The stack holds at most `maximumDepth` screens: past it the oldest go, never the top, so a feature pushing in a
/// loop cannot grow it without end (and back still walks the newest screens).
public struct Router: Sendable {
    /// The most screens the back stack holds.
    public static let maximumDepth = 64

    /// The routes it opens.
    public let table: RouteTable
    /// Features that loaded but do not run, with the reason (their routes explain instead of opening).
    public let disabled: [String: Problem]
    /// In solo, how routes of features that are not loaded are stubbed; nil in the full app.
    public let foreign: ForeignRoutes?
    /// The screens, bottom first.
    public private(set) var stack: [StackEntry] = []
    /// Where to continue after signing in.
    public private(set) var pendingAfterSignIn: String?

    /// Creates a router with an empty stack; with `foreign`, routes of features that are not loaded are stubs.
    public init(table: RouteTable, disabled: [String: Problem] = [:], foreign: ForeignRoutes? = nil) {
        self.table = table
        self.disabled = disabled
        self.foreign = foreign
    }

    /// The screen on top.
    public var top: StackEntry? { stack.last }

    /// Pushes what `url` resolves to, through the guards; returns a notice when it redirected or failed.
    public mutating func open(_ url: String, signedIn: Bool) -> Notice? {
        guard let match = table.match(url) else {
            if let stub = stub(for: url) { return stub }
            let problem = unknownRoute(url)
            showProblem(url, problem)
            return Notice(level: .error, code: problem.code, message: problem.reason, fix: problem.fix)
        }
        if let reason = disabled[match.entry.feature] {
            let problem = Problem(
                reason.code, subject: url, reason: "\(match.entry.feature) is not running: \(reason.reason)",
                fix: reason.fix)
            showProblem(url, problem)
            return Notice(level: .error, code: .featureDisabled, message: problem.reason, fix: problem.fix)
        }
        if match.entry.declaration.requiresSession && !signedIn, let signIn = table.signInRoute {
            pendingAfterSignIn = url
            let location = Location(url: signIn.pattern.description, pattern: signIn.pattern.description)
            push(.feature(signIn.feature, location))
            return Notice(
                level: .info, code: .redirect, message: "Sign in to continue to \(url)")
        }
        if match.entry.declaration.requiresSession && !signedIn && table.signInRoute == nil,
            let foreign, let signIn = foreign.signIn
        {
            pendingAfterSignIn = url
            let name = foreign.featureName(for: signIn)
            push(.stub(url: signIn, feature: name))
            return Notice(
                level: .info, code: .redirect,
                message: "Sign in to continue to \(url) (\(name) is not loaded: the session comes from the mocks)")
        }
        if stack.isEmpty, let entry = table.entryRoute(of: match.entry.feature),
            entry.pattern.description != url, signedIn || !entry.declaration.requiresSession
        {
            // A deep link lands with its feature's entry route under it, so back reaches the feature's top level.
            let entryURL = entry.pattern.description
            push(.feature(entry.feature, Location(url: entryURL, pattern: entryURL)))
        }
        push(.feature(match.entry.feature, match.location))
        return nil
    }

    /// Shows why `url` cannot open: it replaces a problem screen on top (failed attempts, one after another, leave one
    /// screen to go back from, not one each), else goes on top.
    private mutating func showProblem(_ url: String, _ problem: Problem) {
        if case .problem? = top { stack.removeLast() }
        push(.problem(url: url, problem))
    }

    /// Puts `entry` on top, dropping the oldest screens past `maximumDepth`.
    private mutating func push(_ entry: StackEntry) {
        stack.append(entry)
        if stack.count > Self.maximumDepth { stack.removeFirst(stack.count - Self.maximumDepth) }
    }

    /// Pops the screens above the topmost one showing `url`; false (and nothing popped) when none shows it.
    public mutating func back(to url: String) -> Bool {
        guard let index = stack.lastIndex(where: { $0.url == url }) else { return false }
        stack.removeSubrange((index + 1)...)
        return true
    }

    /// Pops the top screen; false when it is the last one.
    public mutating func back() -> Bool {
        guard stack.count > 1 else { return false }
        stack.removeLast()
        return true
    }

    /// Pops `feature`'s screens down to its first one on top of the stack.
    public mutating func popToRoot(of feature: String) {
        while stack.count > 1, stack.last?.feature == feature, stack[stack.count - 2].feature == feature {
            stack.removeLast()
        }
    }

    /// After signing in: leaves sign-in and returns the URL to continue to (the pending one, else `home`).
    public mutating func didSignIn(home: String) -> String? {
        guard let signIn = table.signInRoute?.feature, top?.feature == signIn else { return nil }
        stack.removeAll { $0.feature == signIn }
        defer { pendingAfterSignIn = nil }
        return pendingAfterSignIn ?? home
    }

    /// After signing out: drops every screen that needs a session and anything pending after sign-in. Nothing is
    /// reopened: the person left on purpose, and the next one to sign in must not be taken back to the screens of the
    /// last (the runtime opens home, which sends a signed-out person to sign in).
    public mutating func didSignOut() {
        stack.removeAll(where: requiresSession)
        pendingAfterSignIn = nil
    }

    /// In solo, a stub for a URL whose scheme no loaded feature answers; nil otherwise.
    private mutating func stub(for url: String) -> Notice? {
        guard let foreign, (try? RoutePattern(url)) != nil else { return nil }
        let scheme = ForeignRoutes.scheme(of: url)
        guard !table.entries.contains(where: { $0.pattern.scheme == scheme }) else { return nil }
        let name = foreign.featureName(for: url)
        push(.stub(url: url, feature: name))
        return Notice(level: .info, code: .stub, message: "→ would open \(url) (\(name) is not loaded)")
    }

    private func requiresSession(_ entry: StackEntry) -> Bool {
        guard case .feature(_, let location) = entry else { return false }
        return table.match(location.url)?.entry.declaration.requiresSession ?? false
    }

    private func unknownRoute(_ url: String) -> Problem {
        let scheme = url.components(separatedBy: "://").first ?? url
        let known = table.entries.filter { $0.feature == scheme }.map(\.pattern.description)
        let reason: String
        do {
            _ = try RoutePattern(url)
            reason =
                known.isEmpty
                ? "no loaded feature answers '\(scheme)://'"
                : "\(scheme) has no route like it (it has \(known.joined(separator: ", ")))"
        } catch {
            reason = "it is not a route URL: \(error.reason)"
        }
        return Problem(
            .notFound, subject: url, reason: reason, fix: "run `microapp routes` to list the routes that can be opened")
    }
}
