import Foundation
import MicroappCore
import MicroappSDK
import Testing

private enum CounterKeys {
    static let value = DependencyKey<Service<Nothing, Int>>.service("counter.value")
}

/// Stands in for a feature in a child process: each start makes a new Root (a new "child"), and the test ends the
/// latest one with `stop(_:)`, as the host's side of a dying child would.
@MainActor
private final class StoppableCounter: FeatureFactory {
    let origin = "/plugins/libCounter.so"
    var starts = 0
    var latest: CounterRoot?
    /// How each start reports its child's end, in start order.
    private var reports: [(FeatureStop) -> Void] = []

    func start(in environment: FeatureEnvironment) throws -> StartedFeature {
        starts += 1
        let root = CounterRoot()
        latest = root
        reports.append(environment.stopped)
        let service = Service<Nothing, Int> { _ in await MainActor.run { root.count } }
        return StartedFeature(root: root, services: [CounterKeys.value.id: service.erased])
    }

    /// The child of start number `start` (1-based; the latest by default) ends.
    func stop(_ cause: FeatureStop.Cause, start: Int? = nil, stderr: [String] = ["fatal: counter gave up"]) {
        guard let report = start.map({ reports[$0 - 1] }) ?? reports.last else { return }
        report(FeatureStop(library: origin, cause: cause, stderrTail: stderr))
    }

    nonisolated static var manifest: FeatureManifest {
        FeatureManifest(
            id: "counter", version: 1, displayName: "Counter", routes: [RouteDeclaration("counter://home")],
            provides: [Provision(CounterKeys.value)])
    }
}

/// A loaded "library" whose registration hands over the stoppable factory.
private struct FakeIsolatedPlugin: LoadedPlugin {
    let path = "/plugins/libCounter.so"
    let manifest = StoppableCounter.manifest
    let factory: StoppableCounter

    @MainActor func register() -> Result<any FeatureFactory, Problem> { .success(factory) }
}

/// Counts taps; its snapshot is the count, as the last snapshot an isolated child sent would be.
@MainActor
private final class CounterRoot: Root {
    var count = 0
    func screen(at location: Location) -> Screen {
        Screen(title: "Count \(count)", content: [.button(Button(id: "increment", title: "+1"))])
    }
    func handle(_ action: Action, at location: Location) { count += 1 }
    func snapshot() -> Data? { Data("\(count)".utf8) }
    func restore(from snapshot: Data) throws { count = Int(String(decoding: snapshot, as: UTF8.self)) ?? 0 }
}

/// An in-process feature with a typed field that asks the counter for its value.
private enum Notes: Feature {
    static let manifest = FeatureManifest(
        id: "notes", version: 1, displayName: "Notes", routes: [RouteDeclaration("notes://home")],
        requirements: [Requirement(CounterKeys.value)])

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        try NotesRoot.make(value: context.service(CounterKeys.value))
    }

    @MainActor static var latest: NotesRoot?
}

@MainActor
private final class NotesRoot: Root {
    let value: Service<Nothing, Int>
    var text = ""
    var answer = ""
    var pending: Task<Void, Never>?

    init(value: Service<Nothing, Int>) { self.value = value }

    /// A new Root, which the tests read through `Notes.latest`.
    static func make(value: Service<Nothing, Int>) -> NotesRoot {
        let root = NotesRoot(value: value)
        Notes.latest = root
        return root
    }

    func screen(at location: Location) -> Screen {
        Screen(
            title: "Notes",
            content: [
                .field(TextField(id: "note", label: "Note", text: text)), .button(Button(id: "ask", title: "Ask")),
            ])
    }

    func handle(_ action: Action, at location: Location) {
        switch action {
        case .input(id: "note", let typed): text = typed
        case .tap(id: "ask"):
            pending = Task {
                do throws(ServiceError) {
                    answer = "\(try await value(Nothing()))"
                } catch {
                    answer = error.code
                }
            }
        default: break
        }
    }
}

/// A runtime with the stoppable counter and in-process notes, the notices it posted, and a clock the test moves.
@MainActor
private final class Harness {
    let counter = StoppableCounter()
    let runtime: AppRuntime
    var notices: [Notice] = []
    nonisolated let clock = TestClock()

    init(limit: StopLimit = StopLimit(), opening url: String? = nil) {
        let sources: [FeatureSource] = [.plugin(FakeIsolatedPlugin(factory: counter)), .linked(Notes.self)]
        let container = Container()
        let resolution = DependencyResolver.resolve(
            sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) }, hostOffers: container.offers
        )
        let clock = clock
        runtime = AppRuntime(
            sources: sources, resolution: resolution, container: container,
            options: AppRuntime.Options(stopLimit: limit, uptime: { clock.now.offset }, now: { .now }))
        runtime.onUpdate = { [weak self] _, posted in self?.notices += posted }
        #expect(resolution.problems.isEmpty)
        if let url { runtime.open(url) }
    }

    /// Lets the runtime's scheduled update run, so posted notices arrive.
    func settle() async {
        for _ in 0..<5 { await Task.yield() }
    }

    /// What Notes got from the counter's service.
    func askCounter() async -> String {
        runtime.open("notes://home")
        runtime.send(.action(.tap(id: "ask")))
        await Notes.latest?.pending?.value
        return Notes.latest?.answer ?? ""
    }

    var buttons: [String] { runtime.frame.screen.reachableElements.compactMap(\.id) }

    /// Types `text` into Notes, then opens the counter on top of it.
    func typeNoteThenOpenCounter(_ text: String) {
        runtime.open("notes://home")
        runtime.send(.action(.input(id: "note", text: text)))
        runtime.open("counter://home")
    }

    /// True when the screen on top is Notes showing `text` in its field.
    func showsNote(_ text: String) -> Bool {
        runtime.frame.route == "notes://home"
            && runtime.frame.screen.element(id: "note") == .field(TextField(id: "note", label: "Note", text: text))
    }
}

@MainActor
// Serialized: `Notes.latest` is the one Notes Root a test reads.
@Suite("A feature whose process stops", .serialized)
struct StoppedFeatureTests {
    @Test(
        "its routes show '<feature id> stopped: <reason>' with Restart and Back, and an error names id, library and cause, never the plugin's own display name"
    )
    func stoppedScreenAndError() async {
        let harness = Harness(opening: "counter://home")
        harness.counter.stop(.crashed(signal: 11))
        await harness.settle()
        let frame = harness.runtime.frame
        #expect(frame.screen.title == "counter stopped: it crashed (signal 11, SIGSEGV)")
        #expect(frame.route == "counter://home")
        #expect(harness.buttons == ["restart", "back"])
        let error = harness.notices.first { $0.code == "feature-crashed" }
        #expect(error?.message.contains("/plugins/libCounter.so") == true)
        #expect(error?.message.hasPrefix("counter stopped") == true)
        #expect(error.map { !$0.message.contains("Counter stopped") } == true, "the display name is the plugin's words")
        #expect(error?.detail == ["fatal: counter gave up"])
        #expect(error?.fix?.contains("Restart") == true)
        harness.runtime.open("notes://home")
        harness.runtime.open("counter://home")
        #expect(
            harness.runtime.frame.screen.title.hasPrefix("counter stopped"), "a route into it opened something else")
    }

    @Test("every other feature keeps its state, its place on the back stack and its typed input")
    func othersKeepTheirState() async {
        let harness = Harness()
        harness.typeNoteThenOpenCounter("half a sentence")
        harness.counter.stop(.exited(status: 0))
        harness.runtime.send(.back)
        #expect(harness.showsNote("half a sentence"))
    }

    @Test("Restart starts a new Root through the same factory and gives it the state the old one kept")
    func restartRestoresTheLastSnapshot() async {
        let harness = Harness(opening: "counter://home")
        harness.runtime.send(.action(.tap(id: "increment")))
        harness.runtime.send(.action(.tap(id: "increment")))
        harness.counter.stop(.killed(signal: 9))
        #expect(harness.runtime.isStopped("counter"))
        harness.runtime.send(.action(.tap(id: "increment")))
        #expect(harness.counter.latest?.count == 2, "a tap reached the Root of a stopped feature")
        harness.runtime.send(.action(.tap(id: "restart")))
        #expect(harness.counter.starts == 2)
        #expect(!harness.runtime.isStopped("counter"))
        #expect(harness.runtime.frame.screen.title == "Count 2")
        harness.runtime.send(.action(.tap(id: "increment")))
        #expect(harness.runtime.frame.screen.title == "Count 3")
    }

    @Test("the services it provides fail with feature-stopped while it is stopped, and answer again after Restart")
    func servicesFailWhileStopped() async {
        let harness = Harness()
        #expect(await harness.askCounter() == "0")
        harness.counter.stop(.hung(request: "screen", seconds: 2))
        #expect(await harness.askCounter() == "feature-stopped")
        harness.runtime.open("counter://home")
        harness.runtime.send(.action(.tap(id: "restart")))
        #expect(await harness.askCounter() == "0")
    }

    @Test("the third stop within 30 s on the host's clock turns the feature off with a banner; the app goes on")
    func repeatedStopsTurnItOff() async {
        let harness = Harness()
        harness.typeNoteThenOpenCounter("still here")
        for _ in 0..<2 {
            harness.counter.stop(.crashed(signal: 6))
            harness.runtime.send(.action(.tap(id: "restart")))
            harness.clock.advance(by: .seconds(10))
        }
        #expect(harness.counter.starts == 3)
        harness.counter.stop(.crashed(signal: 6))
        await harness.settle()
        #expect(harness.notices.contains { $0.code == "feature-off" && $0.message.contains("3 times within 30 s") })
        #expect(harness.runtime.frame.screen.title.hasPrefix("counter is off"))
        #expect(harness.buttons == ["back"])
        harness.runtime.send(.action(.tap(id: "restart")))
        #expect(harness.counter.starts == 3, "Restart was taken although it was not on screen")
        harness.runtime.send(.back)
        #expect(harness.showsNote("still here"))
    }

    @Test("stops further apart than the window keep offering Restart")
    func stopsFarApartDoNot() async {
        let harness = Harness(opening: "counter://home")
        for _ in 0..<4 {
            harness.counter.stop(.crashed(signal: 6))
            harness.clock.advance(by: .seconds(16))
            #expect(harness.buttons == ["restart", "back"])
            harness.runtime.send(.action(.tap(id: "restart")))
        }
        #expect(harness.counter.starts == 5)
    }

    @Test("a stop reported by a start that was swapped out since does not stop the running one")
    func staleStopIsIgnored() async {
        let harness = Harness(opening: "counter://home")
        harness.counter.stop(.crashed(signal: 11))
        harness.runtime.send(.action(.tap(id: "restart")))
        // The first start's child is reported again (its end was read twice, or late): not the running one's.
        harness.counter.stop(.exited(status: 1), start: 1)
        #expect(!harness.runtime.isStopped("counter"))
        harness.counter.stop(.exited(status: 1))
        #expect(harness.runtime.isStopped("counter"), "the latest start's own stop must still count")
        harness.runtime.send(.action(.tap(id: "restart")))
        #expect(harness.counter.starts == 3)
    }
}
