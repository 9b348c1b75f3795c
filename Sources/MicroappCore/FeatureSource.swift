import MicroappSDK

/// Where a feature's code comes from: a plugin library (registered when it starts) or a type linked into the host
/// (the monolith, tests).
public enum FeatureSource: @unchecked Sendable {
    /// A loaded plugin image.
    case plugin(any LoadedPlugin)
    /// A feature type compiled into this executable.
    case linked(any Feature.Type)

    /// What the feature says about itself.
    public var manifest: FeatureManifest {
        switch self {
        case .plugin(let image): image.manifest
        case .linked(let feature): feature.manifest
        }
    }

    /// Where it came from, for messages (the library path, or `linked`).
    public var origin: String {
        switch self {
        case .plugin(let image): image.path
        case .linked(let feature): "linked \(feature)"
        }
    }

    /// How to start the feature: registered through the C entry (or a child process) for a plugin, at hand for a
    /// linked type.
    @MainActor
    public func register() -> Result<any FeatureFactory, Problem> {
        switch self {
        case .plugin(let image): image.register()
        case .linked(let feature): .success(InProcessFeature(feature, origin: origin))
        }
    }
}

/// A plugin library the platform layer loaded (into this process, or into a sandboxed child): where it is, what
/// its manifest says, and how to register it. The runtime starts features through this, so the core never opens a
/// library itself.
public protocol LoadedPlugin: Sendable {
    /// The file it was loaded from.
    var path: String { get }
    /// What the plugin says about itself.
    var manifest: FeatureManifest { get }
    /// Calls the plugin's registration and returns how to start the feature it handed over.
    @MainActor func register() -> Result<any FeatureFactory, Problem>
}
