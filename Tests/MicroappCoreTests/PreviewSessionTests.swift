import MicroappSDK
import Testing

/// A feature whose one screen loads a count from a mocked service.
private enum CounterFeature: Feature {
    static let count = DependencyKey<Service<Nothing, Int>>.service("counter.count")
    static let manifest = FeatureManifest(
        id: "counter", version: 1, displayName: "Counter",
        routes: [RouteDeclaration("counter://home"), RouteDeclaration("counter://other")],
        requirements: [count.requirement])

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        CounterRoot(service: try context.service(count), invalidate: { context.invalidate() })
    }

    @MainActor static func mocks() -> Mocks {
        var mocks = Mocks()
        mocks.service(count, Service { _ in 42 })
        mocks.service(count, variant: "failing", Service { _ in throw ServiceError(code: "down", message: "Down") })
        return mocks
    }
}

@MainActor
private final class CounterRoot: Root {
    let service: Service<Nothing, Int>
    let invalidate: () -> Void
    var state = ScreenState.loading("Counting…")
    var count = 0

    init(service: Service<Nothing, Int>, invalidate: @escaping () -> Void) {
        self.service = service
        self.invalidate = invalidate
    }

    func willShow(_ location: Location) {
        Task { @MainActor in
            do throws(ServiceError) {
                count = try await service(Nothing())
                state = .view
            } catch {
                state = .error(ErrorPanel(title: "No count", message: error.message, actions: []))
            }
            invalidate()
        }
    }

    func screen(at location: Location) -> Screen {
        Screen(title: "Count", content: [.text(Text("\(count)"))], state: state)
    }

    func handle(_ action: Action, at location: Location) {}
}

@MainActor
@Suite("PreviewSession: previews made on a feature's own mocks")
struct PreviewSessionTests {
    @Test("the loading screen comes first, then the screen the mock leads to")
    func loadingThenView() async throws {
        let session = try PreviewSession(CounterFeature.self, open: "counter://home")
        let loading = session.preview()
        #expect(loading.state == .loading && loading.route == "counter://home")
        try await session.next(.view)
        #expect(session.preview("answer") == ScreenPreview("counter://home", variant: "answer", session.screen))
        #expect(session.screen.content == [.text(Text("42"))])
    }

    @Test("a variant of a mock leads to its state; an unknown variant or route is refused")
    func variantsAndRefusals() async throws {
        let failing = try PreviewSession(
            CounterFeature.self, open: "counter://home", variants: ["counter.count": "failing"])
        try await failing.next(.error)
        #expect(failing.preview().state == .error)
        #expect(throws: PreviewSession.Failure.self) {
            try PreviewSession(CounterFeature.self, open: "counter://home", variants: ["counter.count": "slow"])
        }
        #expect(throws: PreviewSession.Failure.self) { try PreviewSession(CounterFeature.self, open: "elsewhere://x") }
    }
}
