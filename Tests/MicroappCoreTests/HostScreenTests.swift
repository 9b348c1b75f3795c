import Foundation
import MicroappCore
import MicroappSDK
import Testing

/// A feature with one route, `picky://item/{id}`, whose screen is an error with Back when the id is not a number.
private enum Picky: Feature {
    static var manifest: FeatureManifest {
        FeatureManifest(
            id: "picky", version: 1, displayName: "Picky", routes: [RouteDeclaration("picky://item/{id}")])
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { PickyRoot() }
}

@MainActor
private final class PickyRoot: Root {
    func screen(at location: Location) -> Screen {
        guard let id = location.parameters["id"], Int(id) != nil else {
            return Screen(
                title: "Picky", content: [],
                state: .error(
                    ErrorPanel(
                        title: "No such item", message: "Picky has no item at \(location.url)",
                        actions: [Button(id: "back", title: "Back")])))
        }
        return Screen(title: "Item \(id)", content: [.text(Text("Item \(id)"))])
    }

    func handle(_ action: Action, at location: Location) {}
}

@MainActor
@Suite("The host's own screens and a route that cannot open")
struct HostScreenTests {
    private func runtime() -> (AppRuntime, () async -> [Notice]) {
        let source = FeatureSource.linked(Picky.self)
        let container = Container()
        let resolution = DependencyResolver.resolve(
            [Candidate(manifest: source.manifest, path: source.origin, trust: .own)], hostOffers: container.offers)
        let runtime = AppRuntime(
            sources: [source], resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
        let box = NoticeBox()
        runtime.onUpdate = { _, posted in box.notices += posted }
        return (
            runtime,
            {
                for _ in 0..<10 { await Task.yield() }
                return box.notices
            }
        )
    }

    @Test("the problem screen says why once: the URL in the title, the reason, then the fix")
    func problemSaysItOnce() {
        let (runtime, _) = runtime()
        runtime.open("nowhere://at/all")
        let screen = runtime.frame.screen
        #expect(screen.title == "Cannot open nowhere://at/all")
        guard case .error(let panel) = screen.state else {
            Issue.record("expected the error state, got \(screen.state)")
            return
        }
        let said = [screen.title, panel.title, panel.message].joined(separator: "\n")
        #expect(said.components(separatedBy: "no loaded feature answers").count == 2, "\(said)")
        #expect(said.components(separatedBy: "Cannot open").count == 2, "\(said)")
        #expect(panel.message.contains("microapp routes"))
        #expect(panel.actions == [Button(id: "back", title: "Back")])
    }

    @Test("failed attempts to open a URL, one after another, leave one problem screen: back returns where they began")
    func failedAttemptsDoNotGrowTheStack() {
        let (runtime, _) = runtime()
        runtime.open("picky://item/1")
        for url in ["nowhere://a", "nowhere://b", "picky://nope", "not a url"] { runtime.send(.open(url: url)) }
        #expect(runtime.frame.route == "not a url")
        #expect(runtime.frame.depth == 1)
        runtime.send(.back)
        #expect(runtime.frame.route == "picky://item/1")
    }

    @Test("a feature answering a route with its error screen at once is a problem front ends hear (an error line)")
    func featureErrorScreenIsAProblem() async {
        let (runtime, notices) = runtime()
        runtime.open("picky://item/1")
        runtime.send(.open(url: "picky://item/abc"))
        let errors = await notices().filter { $0.level == .error }
        #expect(errors.map(\.code) == ["screen-error"])
        #expect(errors.first?.message == "Picky has no item at picky://item/abc")
        #expect(errors.first?.feature == "picky")
    }
}

@MainActor
private final class NoticeBox {
    var notices: [Notice] = []
}
