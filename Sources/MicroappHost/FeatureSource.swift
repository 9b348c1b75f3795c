import MicroappSDK

/// Where a feature's code comes from: a plugin library (registered when it starts) or a type linked into the host
/// (the monolith, tests).
public enum FeatureSource: @unchecked Sendable {
    /// A loaded plugin image.
    case plugin(PluginImage)
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

    /// The feature type: registered through the C entry for a plugin, at hand for a linked type.
    public func register() -> Result<any Feature.Type, Diagnostic> {
        switch self {
        case .plugin(let image): PluginLoader.register(image)
        case .linked(let feature): .success(feature)
        }
    }
}
