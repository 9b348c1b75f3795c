import BenchmarkSupport
import Foundation
import MicroappCore
import MicroappSDK

/// Keeps a result alive so the optimizer cannot drop the call that made it.
nonisolated(unsafe) private var sink: Int = 0

@inline(never)
private func consume(_ value: Any?) { sink &+= value == nil ? 1 : 2 }

@inline(never)
private func consume(_ match: RouteTable.Match?) { sink &+= match?.location.parameters.count ?? 0 }

/// A plugin set of `count` synthetic features, as their manifests describe them (what the engine knows after
/// loading): each has five routes (three with parameters), needs the shared session, a host service, the service
/// of the feature before it and an optional key nobody offers, and provides one service.
struct SyntheticSet {
    let manifests: [FeatureManifest]
    /// Host services, one of which each feature needs.
    static let hostServices = 10

    /// The id of feature `index`.
    static func id(_ index: Int) -> String { "feature-" + String(format: "%03d", index) }

    init(count: Int) {
        let session = DependencyKey<Session?>.session(access: .read)
        manifests = (0..<count).map { index in
            let id = Self.id(index)
            var requirements = [
                index == 0 ? DependencyKey<Session?>.session(access: .readWrite).requirement : session.requirement,
                DependencyKey<Service<Nothing, Nothing>>.service("host.service-\(index % Self.hostServices)")
                    .requirement,
                DependencyKey<Service<Nothing, Nothing>>.service("\(id).extra", optional: true).requirement,
            ]
            if index > 0 {
                requirements.append(
                    DependencyKey<Service<Nothing, Nothing>>.service("\(Self.id(index - 1)).data").requirement)
            }
            return FeatureManifest(
                id: id, version: 1, displayName: "Feature \(index)",
                routes: [
                    RouteDeclaration("\(id)://home"),
                    RouteDeclaration("\(id)://list/{page}"),
                    RouteDeclaration("\(id)://detail/{id}", requiresSession: true),
                    RouteDeclaration("\(id)://detail/new", requiresSession: true),
                    RouteDeclaration("\(id)://detail/{id}/edit", requiresSession: true),
                ],
                requirements: requirements,
                provides: [Provision(DependencyKey<Service<Nothing, Nothing>>.service("\(id).data"))])
        }
    }

    /// The container after the composition root and every feature's provided service are in.
    @MainActor
    func container() -> Container {
        let container = Container()
        container.share(DependencyKey<Session?>.session(access: .readWrite), ObservableProperty<Session?>(nil))
        let inert = Service<Nothing, Nothing> { _ in Nothing() }
        for index in 0..<Self.hostServices {
            container.provide(DependencyKey<Service<Nothing, Nothing>>.service("host.service-\(index)"), inert)
        }
        for manifest in manifests {
            for provision in manifest.provides {
                container.provide(provision.key, type: provision.type, service: inert.erased, by: manifest.id)
            }
        }
        return container
    }

    var candidates: [Candidate] {
        manifests.map { Candidate(manifest: $0, path: "/plugins/lib\($0.id).so", trust: .own) }
    }
}

/// p50 and p90 of one timed operation, in seconds.
struct Spread {
    var p50: Double
    var p90: Double
    var samples: Int

    init(_ values: [Double]) {
        p50 = percentile(values, 0.5)
        p90 = percentile(values, 0.9)
        samples = values.count
    }
}

/// Times calls in batches: each sample is `batch` calls between two clock reads, divided by `batch`. A clock read
/// costs tens of nanoseconds, as much as the lookups measured, so it is spread over the batch, never subtracted.
@MainActor
struct BatchTimer {
    let clock = ContinuousClock()
    /// Calls per sample for sub-microsecond work.
    static let batch = 10_000

    /// `count` samples of `batch` calls of `call(index)` each, in seconds per call; index counts up across all calls.
    func samples(_ count: Int, batch: Int = BatchTimer.batch, _ call: (Int) -> Void) -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(count)
        for sample in 0..<count {
            let first = sample * batch
            let start = clock.now
            for index in first..<first + batch { call(index) }
            values.append(seconds(clock.now - start) / Double(batch))
        }
        return values
    }
}

/// `count` picks from `chosen` in a random order, `count` a power of two so `order[index & (count - 1)]` wraps.
private func randomOrder<Element>(_ chosen: [Element], _ count: Int, _ random: inout SplitMix64) -> [Element] {
    (0..<count).map { _ in chosen[Int.random(in: 0..<chosen.count, using: &random)] }
}

/// Prints the lookup tables: `Container.value(for:)`, `DependencyResolver.resolve` and `RouteTable.match` with
/// `count` features loaded. Checks the answers (every lookup is verified once before timing), never the time.
@MainActor
func runLookups(count: Int) throws {
    let set = SyntheticSet(count: count)
    let container = set.container()
    let timer = BatchTimer()
    var random = SplitMix64(seed: 0x5EED)
    print("lookups: \(count) features, \(set.manifests.count * 5) routes")
    print("each sample times \(BatchTimer.batch) calls in a row and divides (a whole resolve: one call a sample)")
    print("")
    print("                                                      p50 (µs)   p90 (µs)    samples   target")

    // Container.value(for:): every requirement of every feature, in a shuffled order.
    let requirements = set.manifests.flatMap(\.requirements)
    for requirement in requirements {
        let found = container.value(for: requirement) != nil
        guard found != requirement.isOptional else {
            throw BenchmarkError("container answered \(requirement.key) wrongly (found: \(found))")
        }
    }
    let mask = 65_535
    func containerRow(_ name: String, _ chosen: [Requirement]) {
        let order = randomOrder(chosen, mask + 1, &random)
        _ = timer.samples(3) { consume(container.value(for: order[$0 & mask])) }  // Warm-up.
        let spread = Spread(timer.samples(50) { consume(container.value(for: order[$0 & mask])) })
        row(name, spread, target: 1e-6)
    }
    containerRow("Container.value(for:), all requirements", requirements)
    containerRow(
        "  state, read-only projection (session)", requirements.filter { $0.kind == .state && $0.access == .read })
    containerRow("  service (host or feature)", requirements.filter { $0.kind == .service && !$0.isOptional })
    containerRow("  optional, offered by nobody", requirements.filter(\.isOptional))

    // DependencyResolver.resolve of the whole set, per feature.
    // The resolver gets what the host offers; features' own services are what it adds from their manifests.
    let candidates = set.candidates
    let hostOffers = container.offers.filter { $0.value.provider == "host" }
    let resolution = DependencyResolver.resolve(candidates, hostOffers: hostOffers)
    guard resolution.problems.isEmpty, resolution.startOrder == set.manifests.map(\.id) else {
        throw BenchmarkError("the synthetic set did not resolve cleanly: \(resolution.problems.prefix(3))")
    }
    let resolves = 40
    _ = timer.samples(3, batch: 1) { _ in _ = DependencyResolver.resolve(candidates, hostOffers: hostOffers) }
    let whole = timer.samples(resolves, batch: 1) { _ in
        consume(DependencyResolver.resolve(candidates, hostOffers: hostOffers).startOrder.count)
    }
    row("DependencyResolver.resolve, whole set ÷ \(count)", Spread(whole.map { $0 / Double(count) }), target: nil)
    let routeless = candidates.map { candidate in
        var stripped = candidate
        stripped.manifest.routes = [RouteDeclaration("\(candidate.manifest.id)://home")]
        return stripped
    }
    let withoutRoutes = timer.samples(resolves, batch: 1) { _ in
        consume(DependencyResolver.resolve(routeless, hostOffers: hostOffers).startOrder.count)
    }
    row("  same, one route per feature ÷ \(count)", Spread(withoutRoutes.map { $0 / Double(count) }), target: nil)
    let wholeMedian = median(whole)
    print("  whole set: \(fixed(wholeMedian * 1e3, 2)) ms; by set size (ms, one route vs five):")
    for size in Set([25, 50, 100, count].filter { $0 <= count }).sorted() {
        let subset = Array(candidates.prefix(size))
        let subsetRouteless = Array(routeless.prefix(size))
        let five = median(
            timer.samples(9, batch: 1) { _ in
                consume(DependencyResolver.resolve(subset, hostOffers: hostOffers).startOrder.count)
            })
        let one = median(
            timer.samples(9, batch: 1) { _ in
                consume(DependencyResolver.resolve(subsetRouteless, hostOffers: hostOffers).startOrder.count)
            })
        print(
            "    \(pad(String(size), 4)) features: \(fixed(one * 1e3, 3, width: 8)) vs \(fixed(five * 1e3, 3, width: 8))"
        )
    }

    // RouteTable.match: hits on every kind of route of random features, and misses.
    let table = RouteTable(set.manifests)
    guard table.entries.count == count * 5 else {
        throw BenchmarkError("the route table has \(table.entries.count) entries")
    }
    var urls: [(url: String, feature: String?, pattern: String?, parameters: [String: String])] = []
    for _ in 0..<2_000 {
        let id = SyntheticSet.id(Int.random(in: 0..<count, using: &random))
        let number = String(Int.random(in: 1..<10_000, using: &random))
        urls += [
            ("\(id)://home", id, "\(id)://home", [:]),
            ("\(id)://list/\(number)", id, "\(id)://list/{page}", ["page": number]),
            ("\(id)://detail/\(number)", id, "\(id)://detail/{id}", ["id": number]),
            ("\(id)://detail/new", id, "\(id)://detail/new", [:]),
            ("\(id)://detail/\(number)/edit", id, "\(id)://detail/{id}/edit", ["id": number]),
            ("\(id)://nowhere/\(number)", nil, nil, [:]),
            ("unknown://detail/\(number)", nil, nil, [:]),
        ]
    }
    for expected in urls {
        let match = table.match(expected.url)
        guard match?.entry.feature == expected.feature, match?.location.pattern == expected.pattern,
            (match?.location.parameters ?? [:]) == expected.parameters
        else { throw BenchmarkError("RouteTable.match(\(expected.url)) gave \(String(describing: match?.location))") }
    }
    let hits = urls.filter { $0.feature != nil }.map(\.url)
    let misses = urls.filter { $0.feature == nil }.map(\.url)
    func routeRow(_ name: String, _ chosen: [String]) {
        let order = randomOrder(chosen, mask + 1, &random)
        _ = timer.samples(3) { consume(table.match(order[$0 & mask])) }  // Warm-up.
        row(name, Spread(timer.samples(50) { consume(table.match(order[$0 & mask])) }), target: 5e-6)
    }
    // The table indexes routes by scheme and segment count, so a lookup tries only the routes that could match.
    routeRow("RouteTable.match, hits (\(table.entries.count) routes)", hits)
    routeRow("RouteTable.match, misses", misses)
    let single = try RoutePattern("\(SyntheticSet.id(0))://detail/{id}/edit")
    let url = "\(SyntheticSet.id(0))://detail/42/edit"
    let one = Spread(timer.samples(50) { _ in consume(single.match(url)) })
    row("  one RoutePattern.match (for scale)", one, target: nil)
}

/// One line of the lookup table; `target` in seconds, checked against p50.
private func row(_ name: String, _ spread: Spread, target: Double?) {
    let verdict =
        target.map { spread.p50 <= $0 ? "≤ \(fixed($0 * 1e6, 0)) µs ✓" : "≤ \(fixed($0 * 1e6, 0)) µs ✗" } ?? ""
    print(
        padRight(name, 52), fixed(spread.p50 * 1e6, 3, width: 9), fixed(spread.p90 * 1e6, 3, width: 10),
        pad(String(spread.samples), 10), "  " + verdict)
}

@inline(never)
private func consume(_ value: [String: String]?) { sink &+= value?.count ?? 0 }

@inline(never)
private func consume(_ value: Int) { sink &+= value }
