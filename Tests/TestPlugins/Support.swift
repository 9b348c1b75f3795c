import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import Testing

/// The host side of the tests: a container like the demo app's, and the check that the real plugins survive.
@MainActor
package enum Host {
    /// Host state that features may only read: asking for read-write is a wrong-access problem.
    package static let counter = DependencyKey<Int>.state("host.counter", access: .read)

    /// A container offering what the real plugins ask for (each service under the exact type their manifests
    /// name, the session read-write), plus `host.counter` shared read-only. Fixture keys are never offered, nor
    /// the services a real plugin provides itself (Search's `search.recent-summary`, which Settings uses).
    package static func container() -> Container {
        let container = Container()
        let manifests = RealPlugins.manifests
        let provided = Set(manifests.flatMap(\.provides).map(\.key))
        let real = manifests.flatMap(\.requirements).filter { !provided.contains($0.key) }
        for requirement in real where requirement.kind == .service {
            container.provide(
                requirement.key, type: requirement.type, service: ErasedService { _ in Data("{}".utf8) }, by: "host")
        }
        container.share(.session(access: .readWrite), ObservableProperty<Session?>(nil))
        container.share(counter, ObservableProperty(0), access: .read)
        return container
    }

    /// Loads `paths` in one `PluginSet.load` call, on a thread of its own (file checks, ELF reads and `dlopen` take
    /// seconds over a suite, and the main actor is every main-actor suite's), and resolves the result against
    /// `container()`.
    package static func loadAndResolve(_ paths: [String]) async -> (PluginSet.LoadReport, Resolution) {
        let report = await BlockingWork.run { () -> PluginSet.LoadReport in
            _ = RealPlugins.manifests  // read here the first time, not on the main actor by `container()`
            return PluginSet.load(paths)
        }
        return (report, PluginSet.resolve(report.images, container: container(), trust: { _ in .own }))
    }

    /// Checks that every real plugin loaded, resolved and would start, whatever else was in the same call.
    package static func expectRealPluginsUnaffected(
        _ report: PluginSet.LoadReport, _ resolution: Resolution, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let real = Paths.realPlugins
        #expect(
            real.contains { $0.hasSuffix("/libAuth.so") }, "libAuth.so is not beside the test runner",
            sourceLocation: sourceLocation)
        let loaded = Dictionary(
            report.images.map { ($0.path, $0.manifest.id) }, uniquingKeysWith: { first, _ in first })
        for path in real {
            guard let id = loaded[path] else {
                let problem = report.problems.first { $0.subject == path }
                Issue.record(
                    "real plugin \(path) did not load: \(String(describing: problem))", sourceLocation: sourceLocation)
                continue
            }
            #expect(
                resolution.startOrder.contains(id),
                "real plugin \(id) would not start: \(String(describing: resolution.disabled[id]))",
                sourceLocation: sourceLocation)
        }
    }
}

/// What `reason` and `fix` must mention, checked with a readable failure.
package func expectMentions(
    _ problem: Problem, reason: [String] = [], fix: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for text in reason {
        #expect(problem.reason.contains(text), "reason does not mention \(text)", sourceLocation: sourceLocation)
    }
    for text in fix {
        #expect(problem.fix.contains(text), "fix does not mention \(text)", sourceLocation: sourceLocation)
    }
}

/// Makes a fixture (seconds of `cc` the first time) on a thread of its own and awaits it: a `@MainActor` test must
/// not hold the main actor, which every other main-actor test of the run shares, while a compiler runs.
package func fixture(_ make: @escaping @Sendable () throws -> String) async throws -> String {
    try await BlockingWork.run(make)
}
