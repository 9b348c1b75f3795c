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
@Suite("RootDriver: one feature's Root driven without the host, on its mocks or a test's dependencies")
struct RootDriverTests {
    @Test("the loading screen comes first, then the screen the mock leads to")
    func loadingThenView() async throws {
        let driver = try RootDriver(CounterFeature.self, open: "counter://home")
        let loading = driver.preview()
        #expect(loading.state == .loading && loading.route == "counter://home")
        try await driver.next(.view)
        #expect(driver.preview("answer") == ScreenPreview("counter://home", variant: "answer", driver.screen))
        #expect(driver.screen.content == [.text(Text("42"))])
    }

    @Test("a chosen variant of a mock leads to its state")
    func chosenVariant() async throws {
        let failing = try RootDriver(CounterFeature.self, open: "counter://home", mocks: ["counter.count": "failing"])
        try await failing.next(.error)
        #expect(failing.preview().state == .error)
    }

    @Test("an unknown variant is refused, naming it, the variants there are and the fix")
    func unknownVariant() throws {
        do {
            _ = try RootDriver(CounterFeature.self, open: "counter://home", mocks: ["counter.count": "slow"])
            Issue.record("an unknown variant was accepted")
        } catch {
            #expect(error.reason.contains("counter.count has no variant 'slow'"), "\(error)")
            #expect(error.fix == "use one of: default, failing")
        }
    }

    @Test("an unknown mocked key is refused, listing the mocks")
    func unknownKey() throws {
        do {
            _ = try RootDriver(CounterFeature.self, open: "counter://home", mocks: ["counter.nope": "failing"])
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.reason.contains("there is no mock for 'counter.nope'"), "\(error)")
            #expect(error.fix?.contains("counter.count = default | failing") == true, "\(error)")
        }
    }

    @Test("a test's dependencies made from mocks refuse an unknown variant too, with the same words")
    func dependencyValuesRefuseUnknownVariant() {
        #expect(
            throws: MockChoiceError(
                reason: "counter.count=slow: counter.count has no variant 'slow'", fix: "use one of: default, failing")
        ) {
            try DependencyValues(CounterFeature.mocks(), choosing: ["counter.count": "slow"])
        }
    }

    @Test("a URL that is none of the feature's routes is refused, listing its routes")
    func unknownRoute() {
        #expect(throws: RootDriver.Failure.self) { try RootDriver(CounterFeature.self, open: "elsewhere://x") }
        do {
            _ = try RootDriver(CounterFeature.self, open: "elsewhere://x")
        } catch {
            #expect(error.reason.contains("counter://home, counter://other"), "\(error)")
        }
    }

    @Test("an action a person could not do on the screen as drawn is refused with the reason and the screen")
    func actionsFollowTheHostsRule() async throws {
        let driver = try RootDriver(CounterFeature.self, open: "counter://home")
        try await driver.next(.view)
        do {
            try driver.send(.tap(id: "nowhere"))
            Issue.record("a tap on a button the screen does not show was sent")
        } catch {
            #expect(error.reason == "no button 'nowhere' can be reached on this screen (counter://home)")
            #expect(error.screen == driver.screen)
        }
    }

    @Test("the feature's own routes go on the back stack; other features' routes are only recorded")
    func navigation() throws {
        let driver = try RootDriver(CounterFeature.self, open: "counter://home")
        driver.open("counter://other")
        driver.open("elsewhere://x")
        #expect(driver.backStack.map(\.url) == ["counter://home", "counter://other"])
        #expect(driver.openedElsewhere == ["elsewhere://x"])
        driver.back()
        driver.back()
        #expect(driver.backStack.map(\.url) == ["counter://home"])
    }
}
