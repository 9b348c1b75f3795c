import MicroappSDK

/// What the host hands a feature when it starts it: its manifest, where its requirements come from, the back stack
/// and a way to ask for a redraw. The same for a feature in this process and one in a child process.
@MainActor
public struct FeatureEnvironment {
    /// The manifest of the feature being started.
    public let manifest: FeatureManifest
    /// Its requirements, as the container grants them (services as `ErasedService`, state as `StateGrant`).
    public let dependencies: any DependencySource
    /// The host's back stack, with the feature's id attached to its calls.
    public let navigation: any NavigationHost
    /// Asks the host to draw again.
    public let invalidate: () -> Void
    /// Tells the host the feature's process ended (an isolated feature): the feature stops, the app goes on.
    public let stopped: (FeatureStop) -> Void
    /// Tells the host the feature's code could not be loaded after all (an isolated feature started from its
    /// library's record, whose child refused, hung or ended before its handshake): the feature leaves the app and the
    /// problem is reported as a load problem at start is.
    public let failedToLoad: (Problem) -> Void
    /// Lets the feature's own Root use a service it provides before the container hands it out.
    let offerOwnServices: ([String: ErasedService]) -> Void

    /// A context for a feature type running in this process.
    public func context() -> FeatureContext {
        FeatureContext(manifest: manifest, source: dependencies, navigation: navigation, invalidate: invalidate)
    }

    /// Records the services the feature provides, so its own Root can use them while it is being made.
    public func offerOwn(_ services: [String: ErasedService]) { offerOwnServices(services) }
}

/// A started feature: its live Root and the services it provides, by key id.
public struct StartedFeature {
    /// The Root the host draws and sends actions to.
    public var root: any Root
    /// The services of the manifest's `provides`, by key id (a missing one is a start failure).
    public var services: [String: ErasedService]

    /// Describes a started feature.
    public init(root: any Root, services: [String: ErasedService]) {
        self.root = root
        self.services = services
    }
}

/// How the runtime starts one version of a feature: from a Swift type in this process, or through a child process
/// that runs the plugin in a sandbox. Called on the main actor; it must not wait on I/O (an isolated feature answers
/// later, through its Root and services).
@MainActor
public protocol FeatureFactory: AnyObject {
    /// Where this version's code lives, for messages (a library path, `linked …`, `isolated …`).
    var origin: String { get }
    /// Starts a Root in `environment`; throws when the feature refuses to start.
    func start(in environment: FeatureEnvironment) throws -> StartedFeature
}

/// A feature type running in this process: `provide(_:)` then `makeRoot(_:)` on one context.
@MainActor
public final class InProcessFeature: FeatureFactory {
    /// The feature type.
    public let type: any Feature.Type
    /// Where it came from (the library path, or `linked …`).
    public let origin: String

    /// Wraps `type`, loaded from `origin`.
    public init(_ type: any Feature.Type, origin: String) {
        self.type = type
        self.origin = origin
    }

    /// Runs `provide(_:)`, offers those services to the feature's own Root, then runs `makeRoot(_:)`.
    public func start(in environment: FeatureEnvironment) throws -> StartedFeature {
        let context = environment.context()
        let provisions = try type.provide(context)
        environment.offerOwn(provisions.services)
        return StartedFeature(root: try type.makeRoot(context), services: provisions.services)
    }
}

extension DependencyError {
    /// A service the manifest's `provides` promises that `provide(_:)` did not add: a start failure, in this process
    /// or in an isolated feature's child.
    package static func notProvided(_ key: String) -> DependencyError {
        DependencyError(
            key: key, reason: "the manifest promises it but provide(_:) did not add it",
            fix: "add it in provide(_:) or remove it from the manifest's provides")
    }
}
