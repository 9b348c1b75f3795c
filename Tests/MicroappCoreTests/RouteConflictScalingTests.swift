import MicroappSDK
import TestScratch
import Testing

@testable import MicroappCore

@Suite("Route conflicts: found without comparing every route with every other")
struct RouteConflictScalingTests {
    typealias T = TestManifests

    /// `count` routes of `id`, each under its own literal, half of them with a parameter (`f://item7/{id}`).
    static func routes(_ id: String, count: Int) -> [RouteDeclaration] {
        (0..<count).map { RouteDeclaration(($0 % 2 == 0) ? "\(id)://item\($0)" : "\(id)://item\($0)/{id}") }
    }

    /// The check as it was, one pattern against every claim before it: the reference the index must agree with.
    static func referenceConflicts(_ features: [Candidate]) -> [String] {
        var claimed: [(pattern: RoutePattern, owner: String)] = []
        var found: [String] = []
        let literals = { (pattern: RoutePattern) in
            pattern.segments.filter { if case .literal = $0 { true } else { false } }.count
        }
        let own = { (feature: Candidate, route: RouteDeclaration) in
            route.pattern.hasPrefix(feature.manifest.id + "://")
        }
        let claims =
            features.flatMap { f in f.manifest.routes.filter { own(f, $0) }.map { (f, $0) } }
            + features.flatMap { f in f.manifest.routes.filter { !own(f, $0) }.map { (f, $0) } }
        for (feature, route) in claims {
            guard let pattern = try? RoutePattern(route.pattern) else { continue }
            let id = feature.manifest.id
            if let other = claimed.first(where: {
                $0.pattern.overlaps(pattern) && ($0.owner != id || literals($0.pattern) == literals(pattern))
            }) {
                found.append("'\(route.pattern)' of \(id) conflicts with '\(other.pattern)' of \(other.owner)")
            } else {
                claimed.append((pattern, id))
            }
        }
        return found
    }

    static func conflicts(_ features: [Candidate]) -> [String] {
        var found: [String] = []
        DependencyResolver.checkRoutes(features) { _, problem in
            guard problem.code == .routeConflict else { return }
            found.append(String(problem.reason.dropFirst("route ".count)))
        }
        return found
    }

    @Test(
        "3 000 routes in each of two plugins are checked in work proportional to the routes, not their pairs",
        .offThePool)
    func linearWork() {
        let count = 3_000
        let features = [
            T.candidate("big", routes: Self.routes("big", count: count)),
            T.candidate("large", routes: Self.routes("large", count: count)),
        ]
        var problems: [Problem] = []
        let claims = DependencyResolver.checkRoutes(features) { problems.append($1) }
        #expect(problems.isEmpty, "\(problems.prefix(3))")
        #expect(claims.claims.count == 2 * count)
        // Comparing each route with every claim before it would take about 2 × 3 000² / 2 = 9 000 000 steps.
        #expect(claims.steps <= 10 * 2 * count, "\(claims.steps) steps for \(2 * count) routes")
    }

    @Test("a conflict is still found among thousands of routes, naming the earliest route it overlaps", .offThePool)
    func conflictAmongMany() {
        let features = [
            T.candidate("big", routes: Self.routes("big", count: 3_000)),
            T.candidate("rival", routes: [RouteDeclaration("rival://home"), RouteDeclaration("big://{any}/{id}")]),
        ]
        let found = Self.conflicts(features)
        #expect(found == ["'big://{any}/{id}' of rival conflicts with 'big://item1/{id}' of big"])
    }

    @Test("the indexed check refuses exactly what the pairwise check refused, naming the same routes", .offThePool)
    func agreesWithPairwise() {
        var random = SeededRandom(state: 12)
        let schemes = ["a", "b"]
        let words = ["x", "y", "z", "{p}", "{q}"]
        for _ in 0..<300 {
            let features = schemes.map { id in
                let routes = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                    let scheme = Int.random(in: 0..<5, using: &random) == 0 ? schemes.randomElement()! : id
                    let path = (0..<Int.random(in: 1...3, using: &random)).map { _ in words.randomElement()! }
                    return RouteDeclaration("\(scheme)://" + path.joined(separator: "/"))
                }
                return T.candidate(id, routes: routes)
            }
            #expect(
                Self.conflicts(features) == Self.referenceConflicts(features),
                "\(features.map { $0.manifest.routes.map(\.pattern) })")
        }
    }
}
