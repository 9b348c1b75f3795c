import MicroappCore
import MicroappSDK
import MicroappTesting
import TestScratch
import Testing

/// A feature whose navigation the tests drive: on its screen's buttons (the person's action), or at any moment through
/// `navigation` (as a timer or a late answer would).
private enum Pager: Feature {
    static let manifest = FeatureManifest(
        id: "pager", version: 1, displayName: "Pager",
        routes: [RouteDeclaration("pager://home"), RouteDeclaration("pager://page/{n}")])

    @MainActor static var navigation: (any NavigationHost)?

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        navigation = context.navigation
        return PagerRoot(navigation: context.navigation)
    }
}

@MainActor
private final class PagerRoot: Root {
    let navigation: any NavigationHost
    init(navigation: any NavigationHost) { self.navigation = navigation }

    func screen(at location: Location) -> Screen {
        Screen(
            title: "Pager",
            content: [
                .button(Button(id: "next", title: "Next")), .button(Button(id: "loop", title: "Loop")),
                .button(Button(id: "wait", title: "Wait")),
                .field(TextField(id: "password", label: "Password", isSecure: true)),
            ])
    }

    func handle(_ action: Action, at location: Location) {
        switch action {
        case .tap(id: "next"): navigation.push("pager://page/\((Int(location.parameters["n"] ?? "0") ?? 0) + 1)")
        case .tap(id: "loop"): for n in 0..<1_000 { navigation.push("pager://page/\(n)") }
        default: break
        }
    }
}

private enum Other: Feature {
    static let manifest = FeatureManifest(
        id: "other", version: 1, displayName: "Other", routes: [RouteDeclaration("other://home")])

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { OtherRoot() }
}

@MainActor
private final class OtherRoot: Root {
    func screen(at location: Location) -> Screen { Screen(title: "Other", content: [.text(Text("elsewhere"))]) }
    func handle(_ action: Action, at location: Location) {}
}

@MainActor
private final class Harness {
    let runtime: AppRuntime
    var notices: [Notice] = []
    nonisolated let clock = TestClock()

    init(pagerTrust: FeatureTrust = .own) {
        let sources: [FeatureSource] = [.linked(Pager.self), .linked(Other.self)]
        let container = Container()
        let resolution = DependencyResolver.resolve(
            sources.map {
                Candidate(manifest: $0.manifest, path: $0.origin, trust: $0.manifest.id == "pager" ? pagerTrust : .own)
            }, hostOffers: container.offers)
        let clock = clock
        runtime = AppRuntime(
            sources: sources, resolution: resolution, container: container,
            options: AppRuntime.Options(uptime: { clock.now.offset }, now: { .now }))
        runtime.onUpdate = { [weak self] _, posted in self?.notices += posted }
        runtime.open("pager://home")
    }

    /// Lets the runtime's scheduled update run, so posted notices arrive.
    func settle() async {
        for _ in 0..<5 { await Task.yield() }
    }

    var route: String { runtime.frame.route }
    var refusals: [Notice] { notices.filter { $0.code == "navigation-refused" } }
}

@MainActor
@Suite(
    "Navigation follows the person: a feature moves them only from its screen, in answer to their action", .serialized)
struct NavigationRulesTests {
    @Test("a push in answer to the person's tap on the feature's screen moves them")
    func pushInAnswerToAction() async {
        let harness = Harness()
        harness.runtime.send(.action(.tap(id: "next")))
        #expect(harness.route == "pager://page/1")
        await harness.settle()
        #expect(harness.refusals.isEmpty)
    }

    @Test("an open from a feature that is not on top is dropped, with a notice naming the feature")
    func notOnTopIsRefused() async throws {
        let harness = Harness()
        harness.runtime.send(.action(.tap(id: "wait")))
        harness.runtime.send(.open(url: "other://home"))
        Pager.navigation?.open("pager://page/9")
        #expect(harness.route == "other://home")
        await harness.settle()
        let notice = try #require(harness.refusals.only)
        #expect(notice.feature == "pager")
        #expect(notice.message.contains("pager") && notice.message.contains("other"))
        #expect(notice.fix?.isEmpty == false)
    }

    @Test("a feature on top that navigates with no action of the person on its screen is refused")
    func noActionIsRefused() async {
        let harness = Harness()
        Pager.navigation?.push("pager://page/5")
        #expect(harness.route == "pager://home")
        await harness.settle()
        #expect(harness.refusals.map(\.feature) == ["pager"])
    }

    @Test("an answer within the window after the person's action moves them; one after the window does not")
    func windowOnTheTestClock() async {
        let harness = Harness()
        harness.runtime.send(.action(.tap(id: "wait")))
        harness.clock.advance(by: NavigationGate.window - .milliseconds(1))
        Pager.navigation?.push("pager://page/1")
        #expect(harness.route == "pager://page/1")

        harness.runtime.send(.action(.tap(id: "wait")))
        harness.clock.advance(by: NavigationGate.window + .milliseconds(1))
        Pager.navigation?.push("pager://page/2")
        #expect(harness.route == "pager://page/1")
        await harness.settle()
        #expect(harness.refusals.count == 1)
    }

    @Test("the person's own navigation ends the answer: a late push after they went back is dropped")
    func personsNavigationEndsTheAnswer() async {
        let harness = Harness()
        harness.runtime.send(.action(.tap(id: "next")))
        harness.runtime.send(.back)
        Pager.navigation?.push("pager://page/7")
        #expect(harness.route == "pager://home")
        await harness.settle()
        #expect(harness.refusals.count == 1)
    }

    @Test("a push loop stops at the feature's budget with one notice, and the budget comes back with time")
    func pushLoopStopsAtTheBudget() async {
        let harness = Harness()
        harness.runtime.send(.action(.tap(id: "loop")))
        #expect(harness.runtime.frame.depth == NavigationGate.burst)
        await harness.settle()
        #expect(harness.refusals.count == 1)
        #expect(harness.refusals.first?.message.contains("budget") == true)

        harness.clock.advance(by: .seconds(1))
        harness.runtime.send(.action(.tap(id: "next")))
        #expect(harness.runtime.frame.depth == NavigationGate.burst + 1)
    }

    @Test("the person's events and the host's redirects are never limited")
    func personIsNeverLimited() {
        let harness = Harness()
        for n in 0..<100 { harness.runtime.send(.open(url: "pager://page/\(n)")) }
        #expect(harness.route == "pager://page/99")
        #expect(harness.runtime.frame.depth == Router.maximumDepth - 1)
    }

    @Test("an untrusted feature's frames carry its origin; the repository's own carry theirs as own")
    func framesCarryTheOrigin() throws {
        let untrusted = Harness(pagerTrust: .untrusted)
        let origin = try #require(untrusted.runtime.frame.origin)
        #expect(origin.trust == .untrusted && origin.feature == "pager" && origin.isUntrusted)
        #expect(origin.library == FeatureSource.linked(Pager.self).origin)
        #expect(Harness().runtime.frame.origin?.trust == .own)
    }
}

@Suite("The gate on its own: the budget")
struct NavigationGateTests {
    @Test(
        "every request spends from the budget, refused ones too; it refills at its rate, up to the burst", .offThePool)
    func budget() {
        var gate = NavigationGate()
        for _ in 0..<NavigationGate.burst {
            #expect(gate.request(from: "x", onTop: "y", at: .zero) == .notOnTop(onTop: "y"))
        }
        #expect(gate.request(from: "x", onTop: "y", at: .zero) == .overLimit(first: true))
        #expect(gate.request(from: "x", onTop: "y", at: .zero) == .overLimit(first: false))
        #expect(gate.request(from: "y", onTop: "y", at: .zero) == .notInAnswer)
        #expect(gate.request(from: "x", onTop: "y", at: .milliseconds(250)) == .notOnTop(onTop: "y"))
        #expect(gate.request(from: "x", onTop: "y", at: .milliseconds(250)) == .overLimit(first: true))
        gate.personActed(on: "x", at: .seconds(1))
        #expect(gate.request(from: "x", onTop: "x", at: .seconds(1)) == .allowed)
    }
}

@Suite("The back stack is bounded")
struct BackStackBoundTests {
    @Test("past 64 screens the oldest go, never the top, and back walks the newest", .offThePool)
    func oldestGo() {
        let table = RouteTable([
            FeatureManifest(id: "p", version: 1, displayName: "P", routes: [RouteDeclaration("p://page/{n}")])
        ])
        var router = Router(table: table)
        for n in 0..<100 { _ = router.open("p://page/\(n)", signedIn: true) }
        #expect(router.stack.count == Router.maximumDepth)
        #expect(router.top?.url == "p://page/99")
        #expect(router.stack.first?.url == "p://page/\(100 - Router.maximumDepth)")
        let wentBack = router.back()
        #expect(wentBack)
        #expect(router.top?.url == "p://page/98")
    }
}

extension Array {
    fileprivate var only: Element? { count == 1 ? first : nil }
}
