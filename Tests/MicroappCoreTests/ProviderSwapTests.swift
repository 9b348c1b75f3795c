import Foundation
import MicroappCore
import MicroappSDK
import Testing

/// A feature that provides `greeter.greet` to others; each version answers in its own words, and one fails to start.
private enum GreeterKeys {
    static let greet = DependencyKey<Service<String, String>>.service("greeter.greet")
}

private protocol Greeter: Feature {
    static var words: String { get }
    static var version: Int { get }
}

extension Greeter {
    static var manifest: FeatureManifest {
        FeatureManifest(
            id: "greeter", version: version, displayName: "Greeter", routes: [RouteDeclaration("greeter://home")],
            provides: [Provision(GreeterKeys.greet)])
    }

    @MainActor static func provide(_ context: FeatureContext) throws -> Provisions {
        var provisions = Provisions()
        let words = words
        provisions.add(GreeterKeys.greet, Service { name in "\(words), \(name)" })
        return provisions
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root { TextRoot("Greeter v\(version)") }
}

private enum GreeterV1: Greeter {
    static let words = "Hello"
    static let version = 1
}

private enum GreeterV2: Greeter {
    static let words = "Howdy"
    static let version = 2
}

/// Provides its service, then fails to start: its service must not replace the running one.
private enum GreeterBroken: Greeter {
    static let words = "Broken"
    static let version = 3

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        throw DependencyError(key: "greeter", reason: "it does not start", fix: "none")
    }
}

/// Provides its service and starts once, but refuses the running version's state and cannot start again: the swap
/// must change nothing, its service included.
private enum GreeterStartsOnce: Greeter {
    static let words = "Once"
    static let version = 4
    @MainActor static var made = 0

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        made += 1
        guard made == 1 else { throw DependencyError(key: "greeter", reason: "it starts once only", fix: "none") }
        return RefusingRoot()
    }
}

/// Holds the greeter's service from its start and shows what it answered last.
private enum Visitor: Feature {
    static var manifest: FeatureManifest {
        FeatureManifest(
            id: "visitor", version: 1, displayName: "Visitor", routes: [RouteDeclaration("visitor://home")],
            requirements: [Requirement(GreeterKeys.greet)])
    }

    @MainActor static func makeRoot(_ context: FeatureContext) throws -> any Root {
        let root = VisitorRoot(greet: try context.service(GreeterKeys.greet), redraw: context.invalidate)
        latest = root
        return root
    }

    @MainActor static var latest: VisitorRoot?
}

@MainActor
private final class TextRoot: Root {
    let text: String
    init(_ text: String) { self.text = text }
    func screen(at location: Location) -> Screen { Screen(title: text, content: []) }
    func handle(_ action: Action, at location: Location) {}
    func snapshot() -> Data? { Data(text.utf8) }
}

/// Refuses every snapshot.
@MainActor
private final class RefusingRoot: Root {
    func screen(at location: Location) -> Screen { Screen(title: "Refusing", content: []) }
    func handle(_ action: Action, at location: Location) {}
    func restore(from snapshot: Data) throws { throw DependencyError(key: "greeter", reason: "no", fix: "none") }
}

@MainActor
final class VisitorRoot: Root {
    let greet: Service<String, String>
    let redraw: () -> Void
    var answer = ""

    init(greet: Service<String, String>, redraw: @escaping () -> Void) {
        self.greet = greet
        self.redraw = redraw
    }

    func screen(at location: Location) -> Screen {
        Screen(title: "Visitor", content: [.text(Text(answer)), .button(Button(id: "greet", title: "Greet"))])
    }

    func handle(_ action: Action, at location: Location) {
        pending = Task {
            answer = (try? await greet("Rick")) ?? "failed"
            redraw()
        }
    }

    /// The call the last tap started.
    var pending: Task<Void, Never>?
}

@MainActor
// Serialized: `Visitor.latest` is the one Root a test reads its answer from, so two tests must not make Visitors at once.
@Suite("Hot swap of a feature that provides a service", .serialized)
struct ProviderSwapTests {
    @Test("features holding a provider's service call the new version after a swap, and the old one after a rollback")
    func consumersFollowTheProvider() async throws {
        let runtime = startVisitorWithGreeterV1()
        #expect(try await greeting(in: runtime) == "Hello, Rick")
        #expect(throws: Never.self) { try runtime.swap("greeter", to: .linked(GreeterV2.self)).get() }
        #expect(try await greeting(in: runtime) == "Howdy, Rick")
        guard case .failure(let problem) = runtime.swap("greeter", to: .linked(GreeterBroken.self)) else {
            Issue.record("a version that does not start was swapped in")
            return
        }
        #expect(problem.code == .startFailed)
        #expect(try await greeting(in: runtime) == "Howdy, Rick", "a version that failed to start took over")
        runtime.rollback("greeter")
        #expect(runtime.version(of: "greeter") == 1)
        #expect(try await greeting(in: runtime) == "Hello, Rick")
    }

    @Test("a swap that fails after the new version provided its service leaves the running version's service in use")
    func failedSwapKeepsTheService() async throws {
        let runtime = startVisitorWithGreeterV1()
        #expect(try await greeting(in: runtime) == "Hello, Rick")
        guard case .failure(let problem) = runtime.swap("greeter", to: .linked(GreeterStartsOnce.self)) else {
            Issue.record("a version that could not start again was swapped in")
            return
        }
        #expect(problem.code == .startFailed && problem.reason.contains("it starts once only"))
        #expect(GreeterStartsOnce.made == 2)
        #expect(runtime.version(of: "greeter") == 1)
        #expect(try await greeting(in: runtime) == "Hello, Rick", "the failed version's service took over")
    }

    /// The visitor on screen, holding v1 of the greeter's service.
    private func startVisitorWithGreeterV1() -> AppRuntime {
        let sources: [FeatureSource] = [.linked(GreeterV1.self), .linked(Visitor.self)]
        let container = Container()
        let resolution = DependencyResolver.resolve(
            sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) }, hostOffers: container.offers
        )
        #expect(resolution.problems.isEmpty)
        let runtime = AppRuntime(
            sources: sources, resolution: resolution, container: container, options: AppRuntime.Options(now: { .now }))
        runtime.open("visitor://home")
        return runtime
    }

    /// Taps Greet on the visitor's screen and returns what the screen shows once its call has answered.
    private func greeting(in runtime: AppRuntime) async throws -> String {
        runtime.send(.action(.tap(id: "greet")))
        await Visitor.latest?.pending?.value
        guard case .text(let shown) = runtime.frame.screen.content.first else { return "" }
        return shown.value
    }
}
