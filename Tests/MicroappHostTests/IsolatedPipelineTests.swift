import Foundation
import MicroappCore
import MicroappHost
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestScratch
import Testing

@Suite("The pipeline's children: libraries placed in a process start in sandboxed feature hosts")
@MainActor
struct IsolatedPipelineTests {
    /// The real `microapp` beside the test runner, as the feature host.
    static let featureHost = "\(Runner.directory)/microapp"

    @Test("libraries placed in a process run in children, the host maps none of them, and all end on request")
    func isolatedLibrariesRunInChildren() async throws {
        let folder = try Runner.folder(["Auth", "Search"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .process
        request.featureHost = Self.featureHost
        request.usesZygote = false
        let set = try await PluginSetLoader.load(request) { .success(Container()) }
        defer { set.endIsolated() }
        // No library was refused (an empty container leaves their requirements unmet: the resolver's problems).
        #expect(set.problems.filter { $0.subject.hasPrefix(folder) }.isEmpty, "\(set.problems)")
        #expect(set.images.isEmpty)
        #expect(set.isolated.map(\.manifest.id).sorted() == ["auth", "search"])
        #expect(set.placements.map(\.running) == [.process, .process])
        #expect(set.isolation(of: "\(folder)/libAuth.so") == IsolationDecision(.process, reason: "--isolation process"))
    }

    @Test(
        "a start that knows its isolated libraries from their records forks, while it loads, the child of the feature its first screen shows, signed in or out, and no other"
    )
    func firstScreenChildForksEarly() async throws {
        let folder = try Runner.folder(["Auth", "Characters", "Search"])
        let cache = Scratch.folder("first-screen-cache").path + "/probe-cache.json"
        var request = PluginSetRequest(
            locations: Runner.installed(in: folder), directories: [folder], environment: .process)
        request.isolation = .process
        request.featureHost = Self.featureHost
        request.usesZygote = false
        request.startsLate = true
        let screening = { PluginScreening(probe: PluginProbe(environment: .process), cache: ProbeCache(file: cache)) }
        // A first start: no records, each child answers its handshake before the set is made, and is recorded.
        request.screening = screening()
        let recorded = try await PluginSetLoader.load(request) { .success(Container()) }
        recorded.endIsolated()
        #expect(recorded.isolated.count == 3 && !recorded.isolated.contains { $0.startsWithFeature })

        request.screening = screening()
        let rick = Session(accountID: "1", email: "rick@example.com", name: "Rick")
        for (url, session, forked) in [
            ("characters://list", nil, ["auth"]), ("characters://list", rick, ["characters"]),
            ("search://home", nil, ["auth"]), ("auth://sign-up", rick, ["auth"]), ("nowhere://home", rick, []),
        ] {
            request.firstScreen = url
            let set = try await PluginSetLoader.load(request) {
                let container = Container()
                container.share(.session(access: .readWrite), ObservableProperty<Session?>(session))
                return .success(container)
            }
            defer { set.endIsolated() }
            #expect(set.isolated.count == 3 && set.isolated.allSatisfy { $0.startsWithFeature }, "\(url)")
            #expect(set.isolated.filter(\.hasWaitingChild).map(\.manifest.id) == forked, "\(url), \(session == nil)")
        }
        // Without a first screen (the inspection commands) nothing is forked before a feature starts.
        request.firstScreen = nil
        let quiet = try await PluginSetLoader.load(request) { .success(Container()) }
        defer { quiet.endIsolated() }
        #expect(!quiet.isolated.contains { $0.hasWaitingChild })
    }

    @Test("a feature loaded here and started in a child too keeps the one here; the child ends with a problem")
    func duplicateChildIsEnded() async throws {
        let here = try Runner.folder(["Auth"])
        let elsewhere = try Runner.folder(["Auth"])
        var request = PluginSetRequest(
            locations: Runner.installed(in: here), directories: [here], environment: .process)
        request.isolation = .inProcess
        let placed = PluginSetLoader.place(
            await PluginSetLoader.screen(["\(here)/libAuth.so"], environment: .process), request)
        let inProcess = await PluginSetLoader.loadInProcess(placed, screening: nil)
        let log = IsolationLog(environment: .process)
        let child = try await IsolatedPlugin.launch(
            "\(elsewhere)/libAuth.so", executable: Self.featureHost, log: log
        ).get()
        let loaded = PluginSetLoader.Loaded(images: inProcess.images, isolated: [child], log: log)
        let deduplicated = loaded.deduplicated()
        #expect(deduplicated.images.map(\.manifest.id) == ["auth"])
        #expect(deduplicated.isolated.isEmpty)
        #expect(deduplicated.problems.map(\.code) == [.duplicateFeature])
        #expect(deduplicated.problems.map(\.subject) == ["\(elsewhere)/libAuth.so"])
    }
}
