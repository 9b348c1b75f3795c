import Foundation
import MicroappCore
import MicroappSDK
import Testing

/// A feature whose screen offers a field, an enabled and a disabled button and a two-row list; `load` puts it in
/// the loading state. It records every action that reaches it.
private enum Offering: Feature {
    static var manifest: FeatureManifest {
        FeatureManifest(id: "offering", version: 1, displayName: "Offering", routes: [RouteDeclaration("offer://home")])
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        let root = OfferingRoot()
        latest = root
        return root
    }

    @MainActor static var latest: OfferingRoot?
}

@MainActor
private final class OfferingRoot: Root {
    var received: [Action] = []
    var isLoading = false

    func screen(at location: Location) -> Screen {
        Screen(
            title: "Offering",
            content: [
                .field(TextField(id: "name", label: "Name", text: "")),
                .button(Button(id: "load", title: "Load")),
                .button(Button(id: "later", title: "Later", isEnabled: false)),
                .list(ListView(id: "rows", items: [ListView.Item("One"), ListView.Item("Two")])),
            ],
            state: isLoading ? .loading("Loading…") : .view)
    }

    func handle(_ action: Action, at location: Location) {
        received.append(action)
        if action == .tap(id: "load") { isLoading = true }
    }
}

@MainActor
@Suite("The host delivers only the actions a screen offers")
struct ActionDeliveryTests {
    @Test("what the screen offers reaches the feature; anything else is answered with not-on-screen")
    func onlyOfferedActions() async throws {
        let app = LinkedApp(Offering.self, open: "offer://home")
        let runtime = app.runtime
        let root = try #require(Offering.latest)

        let refused: [(Action, String)] = [
            (.tap(id: "nope"), "no button 'nope' can be reached"),
            (.tap(id: "later"), "button 'later' is disabled"),
            (.tap(id: "name"), "no button 'name' can be reached"),
            (.input(id: "rows", text: "x"), "no text field 'rows' can be reached"),
            (.select(id: "rows", index: 2), "list 'rows' has 2 rows, so row 2 cannot be chosen"),
        ]
        for (action, _) in refused { runtime.send(.action(action)) }
        let offered: [Action] = [.input(id: "name", text: "Rick"), .select(id: "rows", index: 1), .tap(id: "load")]
        for action in offered { runtime.send(.action(action)) }
        // Loading now: nothing can be reached until it is done.
        runtime.send(.action(.tap(id: "load")))
        await Task.yield()

        #expect(root.received == offered)
        let errors = app.notices.filter { $0.code == "not-on-screen" }
        #expect(errors.count == refused.count + 1)
        for ((_, reason), notice) in zip(refused, errors) {
            #expect(notice.message.contains(reason), "\(notice.message)")
            #expect(notice.level == .error && notice.feature == "offering")
        }
        #expect(errors.last?.message.contains("no button 'load' can be reached") == true)
    }
}
