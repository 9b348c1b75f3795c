import MicroappCore
import MicroappSDK

/// An app running one linked feature as the repository's own, on an empty container, with `url` open and every
/// notice it posts collected.
@MainActor
final class LinkedApp {
    let runtime: AppRuntime
    private(set) var notices: [Notice] = []

    init(_ feature: any Feature.Type, open url: String, options: AppRuntime.Options = AppRuntime.Options(now: { .now }))
    {
        let source = FeatureSource.linked(feature)
        let container = Container()
        let resolution = DependencyResolver.resolve(
            [Candidate(manifest: source.manifest, path: source.origin, trust: .own)], hostOffers: container.offers)
        runtime = AppRuntime(sources: [source], resolution: resolution, container: container, options: options)
        runtime.onUpdate = { [weak self] _, posted in self?.notices += posted }
        runtime.open(url)
    }
}
