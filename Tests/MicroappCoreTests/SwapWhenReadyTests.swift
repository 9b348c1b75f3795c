import Foundation
import MicroappCore
import MicroappSDK
import Testing

private enum EchoKeys {
    static let echo = DependencyKey<Service<Nothing, Int>>.service("echo.value")
}

/// Stands in for an isolated feature's Root: it answers later. Its readiness is what the test says (at once, a
/// problem, or when the test lets it go); it keeps every text typed into it.
@MainActor
private final class ChildRoot: SettlingRoot {
    let version: Int
    var typed: [String] = []
    var retired = false
    var restored: Data?
    /// What `ready` answers; nil answers "ready".
    var problem: Problem?
    /// When set, `ready` waits until the test calls `letReadyGo()`.
    var holdsReady = false
    private var waiting: CheckedContinuation<Void, Never>?

    init(version: Int) { self.version = version }

    func screen(at location: Location) -> Screen {
        Screen(
            title: "Echo v\(version)", content: [.field(TextField(id: "name", label: "Name", text: typed.last ?? ""))])
    }
    func handle(_ action: Action, at location: Location) {
        if case .input(_, let text) = action { typed.append(text) }
    }
    func snapshot() -> Data? { Data((typed.last ?? "").utf8) }
    func restore(from snapshot: Data) throws { restored = snapshot }

    var unsettledReason: String? { nil }
    func retire() { retired = true }
    func settled() async {}
    func ready(showing location: Location?) async -> Problem? {
        if holdsReady { await withCheckedContinuation { waiting = $0 } }
        return problem
    }
    var isWaitingForReady: Bool { waiting != nil }
    func letReadyGo() {
        waiting?.resume()
        waiting = nil
    }
}

/// One version of the echo feature: each start makes a new `ChildRoot`, after a `prepareStart` the test can fail.
@MainActor
private final class ChildFactory: PreparingFactory {
    let origin: String
    let version: Int
    var roots: [ChildRoot] = []
    var prepared = 0
    var discarded = 0
    var startsWithoutPreparing = 0
    /// Why the next `prepareStart` fails, if it should.
    var preparationFailure: String?
    /// Configures each new Root before it is handed over.
    var configure: (ChildRoot) -> Void = { _ in }
    /// Leaves the provided service out, as a start that fails after its Root was made.
    var omitsService = false
    private var isPrepared = false

    init(version: Int) {
        self.version = version
        origin = "/plugins/libEcho-v\(version).so"
    }

    func prepareStart() async throws {
        if let preparationFailure { throw ServiceError(code: "spawn", message: preparationFailure) }
        prepared += 1
        isPrepared = true
    }

    func discardPreparedStart() {
        if isPrepared { discarded += 1 }
        isPrepared = false
    }

    func start(in environment: FeatureEnvironment) throws -> StartedFeature {
        if !isPrepared { startsWithoutPreparing += 1 }
        isPrepared = false
        let root = ChildRoot(version: version)
        configure(root)
        roots.append(root)
        let service = Service<Nothing, Int> { _ in 1 }
        return StartedFeature(root: root, services: omitsService ? [:] : [EchoKeys.echo.id: service.erased])
    }

    nonisolated static func manifest(version: Int) -> FeatureManifest {
        FeatureManifest(
            id: "echo", version: version, displayName: "Echo", routes: [RouteDeclaration("echo://home")],
            provides: [Provision(EchoKeys.echo)])
    }
}

private struct ChildPlugin: LoadedPlugin {
    let path: String
    let manifest: FeatureManifest
    let factory: ChildFactory

    @MainActor init(_ factory: ChildFactory) {
        self.factory = factory
        path = factory.origin
        manifest = ChildFactory.manifest(version: factory.version)
    }

    @MainActor func register() -> Result<any FeatureFactory, Problem> { .success(factory) }
}

/// A runtime running echo v1 on screen, and the notices it posted.
@MainActor
private final class Rig {
    let first = ChildFactory(version: 1)
    let runtime: AppRuntime
    var notices: [Notice] = []

    init() {
        let sources: [FeatureSource] = [.plugin(ChildPlugin(first))]
        let container = Container()
        let resolution = DependencyResolver.resolve(
            sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) }, hostOffers: container.offers
        )
        runtime = AppRuntime(
            sources: sources, resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
        runtime.onUpdate = { [weak self] _, posted in self?.notices += posted }
        runtime.open("echo://home")
    }

    /// Swaps in v2 (expecting it to succeed), types `text` into it and returns its factory.
    func swapToSecond(typing text: String) async -> ChildFactory {
        let second = ChildFactory(version: 2)
        let result = await runtime.swapWhenReady("echo", to: .plugin(ChildPlugin(second)))
        #expect((try? result.get())?.to == 2)
        type(text)
        return second
    }

    /// Lets tasks and scheduled updates run until `condition` holds (a generous number of turns, no clock).
    func waitUntil(_ condition: () -> Bool) async {
        for _ in 0..<10_000 where !condition() { await Task.yield() }
    }

    func notice(_ code: String) -> Notice? { notices.first { $0.code == code } }

    func type(_ text: String) { runtime.send(.action(.input(id: "name", text: text))) }
}

@MainActor
@Suite("Swapping a feature whose Root answers later (an isolated feature)")
struct SwapWhenReadyTests {
    @Test("a rollback whose previous version fails to start changes nothing and says which version runs")
    func failedRollbackKeepsTheRunningVersion() async {
        let rig = Rig()
        let second = await rig.swapToSecond(typing: "Rick")
        rig.first.configure = {
            $0.problem = Problem(.startFailed, subject: "echo", reason: "its new child ended", fix: "rebuild it")
        }
        rig.runtime.send(.rollback(feature: "echo"))
        await rig.waitUntil { rig.notice("rollback-failed") != nil }
        let failure = rig.notice("rollback-failed")
        #expect(failure?.message == "Echo could not roll back to v1: its new child ended; v2 keeps running")
        #expect(rig.runtime.version(of: "echo") == 2)
        #expect(rig.runtime.frame.screen.title == "Echo v2")
        #expect(rig.runtime.canRollBack("echo"), "the previous version is still there to try again")
        #expect(rig.first.roots.last?.retired == true, "the Root that did not start keeps no process")
        #expect(second.roots.last?.retired == false)
        #expect(rig.first.prepared == 1, "the rollback's process was prepared off the main actor")
        #expect(rig.first.startsWithoutPreparing == 1, "only the first start of the run forked on the main actor")
        rig.type("Rick!")
        #expect(second.roots.last?.typed == ["Rick", "Rick!"])
    }

    @Test("a rollback that starts puts the previous version in place with the running state")
    func rollbackWhenReady() async {
        let rig = Rig()
        let second = await rig.swapToSecond(typing: "Rick")
        rig.runtime.send(.rollback(feature: "echo"))
        await rig.waitUntil { rig.notice("rolled-back") != nil }
        #expect(rig.runtime.version(of: "echo") == 1)
        #expect(rig.first.roots.last?.restored == Data("Rick".utf8))
        #expect(second.roots.last?.retired == true)
        #expect(!rig.runtime.canRollBack("echo"))
    }

    @Test("events sent while a swap waits for the new version reach the new version, in order")
    func eventsDuringASwapGoToTheNewVersion() async {
        let rig = Rig()
        let second = ChildFactory(version: 2)
        second.configure = { $0.holdsReady = true }
        let swap = Task { await rig.runtime.swapWhenReady("echo", to: .plugin(ChildPlugin(second))) }
        await rig.waitUntil { second.roots.last?.isWaitingForReady == true }
        #expect(rig.runtime.unsettledReason != nil, "line front ends hold their events meanwhile")
        for text in ["R", "Ri", "Ric", "Rick"] { rig.type(text) }
        second.roots.last?.letReadyGo()
        #expect((try? await swap.value.get())?.to == 2)
        #expect(second.roots.last?.typed == ["R", "Ri", "Ric", "Rick"])
        #expect(rig.first.roots.last?.typed == [], "the old version got nothing it would have lost")
    }

    @Test("events sent while a swap waits go to the running version, in order, when the new version is refused")
    func eventsDuringARefusedSwapGoToTheOldVersion() async {
        let rig = Rig()
        let second = ChildFactory(version: 2)
        second.configure = {
            $0.holdsReady = true
            $0.problem = Problem(.startFailed, subject: "echo", reason: "it could not take the state", fix: "")
        }
        let swap = Task { await rig.runtime.swapWhenReady("echo", to: .plugin(ChildPlugin(second))) }
        await rig.waitUntil { second.roots.last?.isWaitingForReady == true }
        for text in ["M", "Mo"] { rig.type(text) }
        second.roots.last?.letReadyGo()
        if case .success = await swap.value { Issue.record("a refused version was swapped in") }
        #expect(rig.first.roots.last?.typed == ["M", "Mo"])
        #expect(second.roots.last?.retired == true)
        #expect(rig.runtime.version(of: "echo") == 1)
    }

    @Test("a Root made for a swap whose start then fails is ended, not left running")
    func rootOfAFailedStartIsRetired() async {
        let rig = Rig()
        let broken = ChildFactory(version: 2)
        broken.omitsService = true
        let result = await rig.runtime.swapWhenReady("echo", to: .plugin(ChildPlugin(broken)))
        if case .success = result { Issue.record("a version without its service was swapped in") }
        #expect(broken.roots.count == 1 && broken.roots[0].retired, "the new Root's process leaked")
        #expect(rig.runtime.version(of: "echo") == 1)
    }

    @Test(
        "a restart prepares the new process off the main actor; when that fails the feature stays stopped and says so")
    func restartPreparesItsProcess() async {
        let rig = Rig()
        rig.runtime.featureStopped("echo", FeatureStop(library: rig.first.origin, cause: .crashed(signal: 11)))
        rig.first.preparationFailure = "no more processes"
        rig.runtime.send(.action(.tap(id: "restart")))
        await rig.waitUntil { rig.notice("restart-failed") != nil }
        #expect(rig.notice("restart-failed")?.message.hasSuffix("; it stays stopped") == true)
        #expect(rig.runtime.isStopped("echo"))
        rig.first.preparationFailure = nil
        rig.runtime.send(.action(.tap(id: "restart")))
        await rig.waitUntil { rig.notice("feature-restarted") != nil }
        #expect(!rig.runtime.isStopped("echo"))
        #expect(rig.first.prepared == 1 && rig.first.startsWithoutPreparing == 1)
    }
}
