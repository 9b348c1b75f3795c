import MicroappCore
import MicroappSDK
import Testing

@MainActor
final class NowhereNavigation: NavigationHost {
    var opened: [String] = []
    func push(_ url: String) { opened.append(url) }
    func pop() {}
    func popToRoot() {}
    func open(_ url: String) { opened.append(url) }
}

@Suite("Shared state and the container")
@MainActor
struct SharedStateTests {
    let session = ObservableProperty<Session?>(nil)
    let container = Container()
    let rick = Session(accountID: "1", email: "rick@example.com", name: "Rick")

    init() { container.share(.session(access: .readWrite), session) }

    func context(_ access: Access) -> FeatureContext {
        let key = DependencyKey<Session?>.session(access: access)
        let manifest = TestManifests.manifest("f", requirements: [key.requirement])
        return FeatureContext(manifest: manifest, source: container, navigation: NowhereNavigation(), invalidate: {})
    }

    @Test("a read-only projection follows the owner's writes and observers hear them")
    func projectionFollows() throws {
        let value = try context(.read).value(.session(access: .read))
        var heard: [Session?] = []
        let observation = value.observe { heard.append($0) }
        session.value = rick
        #expect(value.value == rick)
        #expect(heard == [rick])
        observation.cancel()
        session.value = nil
        #expect(heard == [rick])
    }

    @Test("a feature granted read access gets a read-only grant, never the host's property")
    func readOnlyCannotWrite() throws {
        let reader = context(.read)
        #expect(throws: DependencyError.self) { try reader.property(.session(access: .read)) }
        let raw = container.value(for: DependencyKey<Session?>.session(access: .read).requirement)
        #expect((raw as? StateGrant)?.access == .read)
        #expect(!(raw is ObservableProperty<Session?>))
    }

    @Test("a read-only copy of which a feature keeps only the observation goes on hearing the host's changes")
    func observationKeepsCopy() throws {
        var heard: [Session?] = []
        let observation = try context(.read).value(.session(access: .read)).observe { heard.append($0) }
        session.value = rick
        #expect(heard == [rick])
        observation.cancel()
    }

    /// Everything reflection reaches from `root`, depth first (closures are leaves: Mirror shows no captures).
    func reachable(from root: Any, depth: Int = 0) -> [Any] {
        guard depth < 12 else { return [] }
        return Mirror(reflecting: root).children.flatMap { [$0.value] + reachable(from: $0.value, depth: depth + 1) }
    }

    @Test("reflection over a read-only value finds nothing that writes the host's state")
    func reflectionCannotWrite() throws {
        let handle = try context(.read).value(.session(access: .read))
        let mallory = Session(accountID: "666", email: "mallory@example.com", name: "Mallory")
        var written = 0
        for found in reachable(from: handle) {
            if let property = found as? ObservableProperty<Session?> {
                property.value = mallory
                written += 1
            }
        }
        #expect(written == 0)
        #expect(session.value == nil, "the host's session is unchanged")
        session.value = rick
        #expect(handle.value == rick, "the handle still follows the host")
    }

    /// Two types with one unqualified name, as a host module and a plugin module each declare their own.
    enum HostModule { struct Theme: Codable, Equatable { var accent: String } }
    enum PluginModule { struct Theme: Codable, Equatable { var accent: String } }

    @Test("state of a type the feature declares itself reaches it as a value of its own type, writes included")
    func stateCrossesAsValues() throws {
        let held = ObservableProperty(HostModule.Theme(accent: "green"))
        container.share(DependencyKey<HostModule.Theme>.state("theme", access: .readWrite), held)
        let ownerKey = DependencyKey<PluginModule.Theme>.state("theme", access: .readWrite)
        let readerKey = DependencyKey<PluginModule.Theme>.state("theme", access: .read)
        func context(_ key: DependencyKey<PluginModule.Theme>) -> FeatureContext {
            FeatureContext(
                manifest: TestManifests.manifest("f", requirements: [key.requirement]), source: container,
                navigation: NowhereNavigation(), invalidate: {})
        }
        let owner = try context(ownerKey).property(ownerKey)
        let reader = try context(readerKey).value(readerKey)
        #expect(reader.value == PluginModule.Theme(accent: "green"))
        owner.value = PluginModule.Theme(accent: "purple")
        #expect(held.value == HostModule.Theme(accent: "purple"))
        #expect(reader.value == PluginModule.Theme(accent: "purple"))
        held.value = HostModule.Theme(accent: "blue")
        #expect(owner.value == PluginModule.Theme(accent: "blue"))
    }

    @Test("the owner with read-write access writes and readers see it")
    func ownerWrites() throws {
        try context(.readWrite).property(.session(access: .readWrite)).value = rick
        #expect(try context(.read).value(.session(access: .read)).value == rick)
    }

    @Test("state shared read-only by the host cannot be taken read-write")
    func hostSharesReadOnly() throws {
        let readOnlyContainer = Container()
        readOnlyContainer.share(.session(access: .readWrite), session, access: .read)
        let key = DependencyKey<Session?>.session(access: .readWrite)
        let context = FeatureContext(
            manifest: TestManifests.manifest("f", requirements: [key.requirement]), source: readOnlyContainer,
            navigation: NowhereNavigation(), invalidate: {})
        #expect {
            try context.property(key)
        } throws: { error in
            (error as? DependencyError)?.reason == "the host granted read access only"
        }
    }

    @Test("a feature cannot look up a key its manifest does not declare")
    func undeclaredKey() {
        let context = FeatureContext(
            manifest: TestManifests.manifest("f"), source: container, navigation: NowhereNavigation(), invalidate: {})
        #expect {
            try context.value(.session(access: .read))
        } throws: { error in
            (error as? DependencyError)?.reason.contains("did not declare") == true
        }
    }

    @Test("a service registered by the host answers through its byte-level form, errors included")
    func serviceRoundTrip() async throws {
        let key = DependencyKey<Service<PageRequest, [String]>>.service("names")
        container.provide(
            key,
            Service { request in
                guard request.page > 0 else { throw ServiceError(code: "bad-page", message: "pages start at 1") }
                return Array(repeating: "Rick", count: request.page)
            })
        let context = FeatureContext(
            manifest: TestManifests.manifest("f", requirements: [key.requirement]), source: container,
            navigation: NowhereNavigation(), invalidate: {})
        let service = try context.service(key)
        #expect(try await service(PageRequest(page: 2)) == ["Rick", "Rick"])
        await #expect(throws: ServiceError(code: "bad-page", message: "pages start at 1")) {
            try await service(PageRequest(page: 0))
        }
    }
}

struct PageRequest: Codable, Sendable {
    var page: Int
}
