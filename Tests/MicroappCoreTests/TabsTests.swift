import Foundation
import MicroappCore
import MicroappSDK
import TestScratch
import Testing

/// A screen that only says where it is, so tab tests see routes and nothing else.
@MainActor
private final class PlaceRoot: Root {
    func screen(at location: Location) -> Screen { Screen(title: location.url, content: []) }
    func handle(_ action: Action, at location: Location) {}
}

/// A list with a detail behind it, whose tab (order 10) opens the list.
private enum Listing: Feature {
    static let manifest = FeatureManifest(
        id: "listing", version: 1, displayName: "Listing",
        routes: [
            RouteDeclaration("listing://all", requiresSession: true),
            RouteDeclaration("listing://item/{id}", requiresSession: true),
        ],
        requirements: [DependencyKey<Session?>.session(access: .read).requirement],
        tab: TabDeclaration(title: "Listing", route: "listing://all", order: 10))
    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { PlaceRoot() }
}

/// Declared after Listing in the source set, but its tab comes first (order 5).
private enum Account: Feature {
    static let manifest = FeatureManifest(
        id: "account", version: 1, displayName: "Account", routes: [RouteDeclaration("account://home")],
        tab: TabDeclaration(title: "Account", route: "account://home", order: 5))
    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { PlaceRoot() }
}

/// The sign-in feature: no tab.
private enum Gate: Feature {
    static let manifest = FeatureManifest(
        id: "gate", version: 1, displayName: "Gate", routes: [RouteDeclaration("gate://in", isSignIn: true)])
    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { PlaceRoot() }
}

@MainActor
@Suite("The tab bar: features' top-level entry points, computed by the engine")
struct TabsTests {
    let session = ObservableProperty<Session?>(Session(accountID: "1", email: "rick@example.com", name: "Rick"))
    let runtime: AppRuntime

    init() {
        let container = Container()
        container.share(.session(access: .readWrite), session)
        let sources: [FeatureSource] = [.linked(Listing.self), .linked(Gate.self), .linked(Account.self)]
        let resolution = DependencyResolver.resolve(
            sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) }, hostOffers: container.offers
        )
        runtime = AppRuntime(
            sources: sources, resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
    }

    @Test("a signed-in frame lists the declared tabs by order, the feature on screen's selected, none for Gate")
    func orderAndSelection() {
        runtime.open("listing://item/3")
        let tabs = runtime.frame.tabs
        #expect(tabs.map(\.id) == ["tab.account", "tab.listing"])
        #expect(tabs.map(\.title) == ["Account", "Listing"])
        #expect(tabs.map(\.route) == ["account://home", "listing://all"])
        #expect(tabs.map(\.selected) == [false, true])
        runtime.send(.open(url: "gate://in"))
        #expect(runtime.frame.tabs.map(\.selected) == [false, false], "no tab is Gate's, so none is selected")
    }

    @Test("signed out, the frame has no tabs, and a tap on a tab id is an ordinary (refused) tap")
    func signedOutHasNone() async {
        session.value = nil
        runtime.open("account://home")
        #expect(runtime.frame.tabs.isEmpty)
        var notices: [Notice] = []
        runtime.onUpdate = { _, posted in notices += posted }
        runtime.send(.action(.tap(id: "tab.listing")))
        await Task.yield()
        #expect(runtime.frame.route == "account://home")
        #expect(notices.contains { $0.code == "not-on-screen" && $0.message.contains("'tab.listing'") })
    }

    @Test("a tap on a tab opens its route, and a tab whose route is on the back stack goes back to it")
    func tapOpensTab() {
        runtime.open("listing://all")
        runtime.send(.action(.tap(id: "tab.account")))
        #expect(runtime.frame.route == "account://home")
        #expect(runtime.frame.depth == 1)
        #expect(runtime.frame.tabs.first { $0.selected }?.id == "tab.account")
        runtime.send(.action(.tap(id: "tab.listing")))
        #expect(runtime.frame.route == "listing://all")
        #expect(runtime.frame.depth == 0, "the list was under Account: going back to it drops Account")
        runtime.send(.action(.tap(id: "tab.listing")))
        #expect(runtime.frame.depth == 0, "the selected tab on its own route opens nothing more")
    }

    @Test("a deep link lands with its feature's entry route under it, so back reaches the list")
    func deepLinkBackReachesEntry() {
        runtime.open("listing://item/3")
        #expect(runtime.frame.depth == 1)
        runtime.send(.back)
        #expect(runtime.frame.route == "listing://all")
    }
}

@Suite("Router: the entry route under a deep link")
struct DeepLinkEntryTests {
    static let table = RouteTable([
        FeatureManifest(
            id: "auth", version: 1, displayName: "Auth", routes: [RouteDeclaration("auth://select", isSignIn: true)]),
        FeatureManifest(
            id: "characters", version: 1, displayName: "Characters",
            routes: [
                RouteDeclaration("characters://list", requiresSession: true),
                RouteDeclaration("characters://detail/{id}", requiresSession: true),
                RouteDeclaration("characters://about"),
            ],
            tab: TabDeclaration(title: "Characters", route: "characters://list", order: 1)),
    ])

    @Test("only a screen opened onto an empty stack gets the entry route under it", .offThePool)
    func onlyOntoEmptyStack() {
        var router = Router(table: Self.table)
        _ = router.open("characters://detail/2", signedIn: true)
        #expect(router.stack.map(\.url) == ["characters://list", "characters://detail/2"])
        _ = router.open("characters://detail/3", signedIn: true)
        #expect(router.stack.map(\.url) == ["characters://list", "characters://detail/2", "characters://detail/3"])
    }

    @Test(
        "the entry route itself, a feature without a tab, and an entry the guard would refuse add nothing", .offThePool)
    func nothingAdded() {
        var router = Router(table: Self.table)
        _ = router.open("characters://list", signedIn: true)
        #expect(router.stack.map(\.url) == ["characters://list"])
        router = Router(table: Self.table)
        _ = router.open("auth://select", signedIn: false)
        #expect(router.stack.map(\.url) == ["auth://select"])
        router = Router(table: Self.table)
        _ = router.open("characters://about", signedIn: false)
        #expect(router.stack.map(\.url) == ["characters://about"], "the list needs a session: it is left out")
    }

    @Test("a deep link continued after signing in has the entry route under it", .offThePool)
    func afterSignIn() {
        var router = Router(table: Self.table)
        _ = router.open("characters://detail/2", signedIn: false)
        #expect(router.stack.map(\.url) == ["auth://select"])
        let next = router.didSignIn(home: "characters://list")
        #expect(next == "characters://detail/2")
        _ = router.open("characters://detail/2", signedIn: true)
        #expect(router.stack.map(\.url) == ["characters://list", "characters://detail/2"])
    }
}

/// An untrusted feature whose tab asks to come first (order −100) with a title of the host's words.
private enum Intruder: Feature {
    static let manifest = FeatureManifest(
        id: "intruder", version: 1, displayName: "Intruder", routes: [RouteDeclaration("intruder://home")],
        tab: TabDeclaration(title: "Intruder", route: "intruder://home", order: -100))
    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { PlaceRoot() }
}

@MainActor
@Suite("The tab bar says whose each tab is")
struct TabOriginTests {
    /// A runtime of Listing (own, order 10), Account (pinned, order 5) and Intruder (untrusted, order −100).
    static func runtime() -> AppRuntime {
        let container = Container()
        container.share(
            .session(access: .readWrite),
            ObservableProperty<Session?>(Session(accountID: "1", email: "rick@example.com", name: "Rick")))
        let sources: [FeatureSource] = [.linked(Intruder.self), .linked(Listing.self), .linked(Account.self)]
        let trust: [String: FeatureTrust] = ["intruder": .untrusted, "listing": .own, "account": .pinned]
        let resolution = DependencyResolver.resolve(
            sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: trust[$0.manifest.id]!) },
            hostOffers: container.offers)
        return AppRuntime(
            sources: sources, resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
    }

    @Test("an untrusted tab asking for order -100 comes after the own and pinned ones, and carries its origin")
    func untrustedTabComesLastWithItsOrigin() {
        let runtime = Self.runtime()
        runtime.open("listing://all")
        let tabs = runtime.frame.tabs
        #expect(tabs.map(\.id) == ["tab.account", "tab.listing", "tab.intruder"])
        #expect(tabs.map { $0.origin?.trust } == [.pinned, .own, .untrusted])
        #expect(tabs.last?.untrustedMark?.hasPrefix("untrusted · intruder from ") == true)
        #expect(tabs.first?.untrustedMark == nil)
    }

    @Test("a tab's JSON carries origin in the frame's shape")
    func tabJSONCarriesOrigin() throws {
        let runtime = Self.runtime()
        runtime.open("intruder://home")
        let data = try JSONEncoder().encode(runtime.frame)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tabs = try #require(object["tabs"] as? [[String: Any]])
        let intruder = try #require(tabs.first { $0["id"] as? String == "tab.intruder" })
        let origin = try #require(intruder["origin"] as? [String: String])
        #expect(origin == object["origin"] as? [String: String])
        #expect(origin["trust"] == "untrusted" && origin["feature"] == "intruder")
    }
}
