import MicroappCore
import MicroappSDK

/// Builds manifests and candidates for resolver and router tests without any library.
enum TestManifests {
    static func manifest(
        _ id: String, routes: [RouteDeclaration]? = nil, requirements: [Requirement] = [],
        provides: [Provision] = []
    ) -> FeatureManifest {
        FeatureManifest(
            id: id, version: 1, displayName: id.capitalized, routes: routes ?? [RouteDeclaration("\(id)://home")],
            requirements: requirements, provides: provides)
    }

    static func candidate(
        _ id: String, routes: [RouteDeclaration]? = nil, requirements: [Requirement] = [],
        provides: [Provision] = []
    ) -> Candidate {
        Candidate(
            manifest: manifest(id, routes: routes, requirements: requirements, provides: provides),
            path: "/plugins/lib\(id.capitalized).so", trust: .own)
    }

    static func service(_ id: String, optional: Bool = false) -> DependencyKey<Service<Nothing, Nothing>> {
        .service(id, optional: optional)
    }

    static func hostOffer(_ key: String, type: String = "Service<Nothing, Nothing>", access: Access = .read) -> Offer {
        Offer(
            key: key, type: type, kind: type.hasPrefix("Service") ? .service : .state, access: access, provider: "host")
    }
}
