import Foundation
import MicroappCore
import MicroappSDK
import Testing

/// A counter feature in three kinds, to see what a swap's notice says became of the state.
enum CounterKind {
    /// Snapshots its count and restores it.
    case keeping
    /// Has no `snapshot()`: the SDK's default keeps nothing.
    case stateless
    /// Snapshots its count and refuses every snapshot.
    case refusing
}

protocol Counter: Feature {
    /// Its kind and version number.
    static var build: (kind: CounterKind, version: Int) { get }
}

extension Counter {
    static var manifest: FeatureManifest {
        FeatureManifest(
            id: "counter", version: build.version, displayName: "Counter",
            routes: [RouteDeclaration("counter://home")])
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        switch build.kind {
        case .keeping: CountRoot(refusing: false)
        case .stateless: StatelessRoot()
        case .refusing: CountRoot(refusing: true)
        }
    }
}

private enum KeepingV1: Counter { static let build: (kind: CounterKind, version: Int) = (.keeping, 1) }
private enum KeepingV2: Counter { static let build: (kind: CounterKind, version: Int) = (.keeping, 2) }
enum StatelessV1: Counter { static let build: (kind: CounterKind, version: Int) = (.stateless, 1) }
private enum StatelessV2: Counter { static let build: (kind: CounterKind, version: Int) = (.stateless, 2) }
private enum RefusingV2: Counter { static let build: (kind: CounterKind, version: Int) = (.refusing, 2) }

/// Counts taps and keeps nothing across a swap: no `snapshot()` of its own (the SDK's default is nil).
@MainActor
final class StatelessRoot: Root {
    var count = 0
    func screen(at location: Location) -> Screen { Screen(title: "Count \(count)", content: [Self.button]) }
    static let button = Element.button(Button(id: "count", title: "Count"))
    func handle(_ action: Action, at location: Location) { count += 1 }
}

/// Counts taps and snapshots the count; takes it back unless `refusing`.
@MainActor
final class CountRoot: Root {
    let refusing: Bool
    var count = 0
    init(refusing: Bool) { self.refusing = refusing }
    func screen(at location: Location) -> Screen { Screen(title: "Count \(count)", content: [Self.button]) }
    static let button = Element.button(Button(id: "count", title: "Count"))
    func handle(_ action: Action, at location: Location) { count += 1 }
    func snapshot() -> Data? { Data("\(count)".utf8) }
    func restore(from snapshot: Data) throws {
        guard !refusing else { throw CocoaError(.coderReadCorrupt) }
        count = Int(String(decoding: snapshot, as: UTF8.self)) ?? 0
    }
}

@MainActor
@Suite("A swap's notice says what became of the state")
struct SwapStateNoticeTests {
    /// `first` running on screen, tapped three times; then swapped to `second`. The swap's result, the notice it
    /// posted and the title on screen after it.
    private func swap(
        _ first: any Feature.Type, to second: any Feature.Type
    ) async throws -> (SwapResult, Notice, String) {
        let app = LinkedApp(first, open: "counter://home")
        let runtime = app.runtime
        for _ in 0..<3 { runtime.send(.action(.tap(id: "count"))) }
        #expect(runtime.frame.screen.title == "Count 3")
        let result = try runtime.swap("counter", to: .linked(second)).get()
        for _ in 0..<10_000 where !app.notices.contains(where: { $0.code == "swapped" }) { await Task.yield() }
        let notice = try #require(app.notices.first { $0.code == "swapped" }, "\(app.notices)")
        return (result, notice, runtime.frame.screen.title)
    }

    @Test("a Root that snapshots its state: kept, and the notice says so")
    func kept() async throws {
        let (result, notice, title) = try await swap(KeepingV1.self, to: KeepingV2.self)
        #expect(result.state == .kept && result.stateKept)
        #expect(notice.state == .kept)
        #expect(notice.message.hasSuffix("(state kept)"), "\(notice.message)")
        #expect(notice.fix == nil)
        #expect(title == "Count 3")
    }

    @Test("a Root whose snapshot() is nil does not count as kept: the notice says it keeps no state, and how to")
    func keepsNone() async throws {
        let (result, notice, title) = try await swap(StatelessV1.self, to: StatelessV2.self)
        #expect(result.state == .keepsNone && !result.stateKept)
        #expect(notice.state == .keepsNone)
        #expect(notice.message.hasSuffix("(keeps no state)"), "\(notice.message)")
        #expect(!notice.message.contains("kept"))
        #expect(notice.fix?.contains("snapshot() and restore(from:)") == true)
        #expect(title == "Count 0")
    }

    @Test("a version that refuses the state: reset, and the notice says why")
    func reset() async throws {
        let (result, notice, title) = try await swap(KeepingV1.self, to: RefusingV2.self)
        #expect(result.state == .reset)
        #expect(notice.state == .reset)
        #expect(notice.message.hasSuffix("(state reset: v2 refused v1's state)"), "\(notice.message)")
        #expect(title == "Count 0")
    }

    @Test("the state is a field of the notice as JSON: kept, reset or none")
    func stateIsCoded() throws {
        for state in [SwapState.kept, .reset, .keepsNone] {
            let notice = Notice(level: .info, code: "swapped", message: "m", state: state)
            let json = String(decoding: try JSONEncoder().encode(notice), as: UTF8.self)
            let name = state == .keepsNone ? "none" : state.rawValue
            #expect(json.contains(#""state":"\#(name)""#), "\(json)")
            #expect(try JSONDecoder().decode(Notice.self, from: Data(json.utf8)) == notice)
        }
    }
}
