/// Something a feature does beyond drawing screens and calling its requirements, declared in its manifest: the host
/// grants an isolated feature only what it declares (`network`, `files:scratch`). A name is a string, so a manifest
/// naming a capability this host does not know still decodes, and the host refuses that feature by the name.
/// Added in SDK 1.1.
public struct Capability: RawRepresentable, Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The capability's name as manifests and the command line write it (`network`).
    public var rawValue: String

    /// The capability called `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Open network connections (sockets beyond the one to the host).
    public static let network = Capability(rawValue: "network")
    /// Read and write files in the feature's own scratch folder (nothing else on disk).
    public static let scratchFiles = Capability(rawValue: "files:scratch")

    /// The name (`network`).
    public var description: String { rawValue }

    /// Orders by name.
    public static func < (left: Capability, right: Capability) -> Bool { left.rawValue < right.rawValue }
}
