import CMicroappABI

/// A version of the SDK, major.minor: a plugin built against it loads in a host of the same major and a minor
/// at least as new.
public struct SDKVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Changes that break already-built plugins bump it.
    public let major: Int
    /// Additive changes bump it.
    public let minor: Int

    /// The version `major.minor`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Parses "major.minor" (digits only); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCII) }),
            let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0
        else { return nil }
        self.init(major: major, minor: minor)
    }

    /// Parses the name of a version symbol, `microapp_sdk_<major>_<minor>`; nil for any other name.
    public init?(symbolName: String) {
        let prefix = Self.symbolPrefix
        guard symbolName.hasPrefix(prefix) else { return nil }
        let rest = symbolName.dropFirst(prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard rest.count == 2 else { return nil }
        self.init("\(rest[0]).\(rest[1])")
    }

    /// What every version symbol's name starts with.
    public static let symbolPrefix = "microapp_sdk_"

    /// The version of the SDK library loaded in this process (compiled into it, not into its clients).
    public static var current: SDKVersion {
        SDKVersion(major: Int(MICROAPP_SDK_MAJOR), minor: Int(MICROAPP_SDK_MINOR))
    }

    /// The name of this version's symbol, which plugins built against it need from the SDK library.
    public var symbolName: String { "\(Self.symbolPrefix)\(major)_\(minor)" }

    /// "major.minor".
    public var description: String { "\(major).\(minor)" }

    /// Whether a host with this SDK loads a plugin built against `plugin`: same major, minor not newer.
    public func accepts(_ plugin: SDKVersion) -> Bool { plugin.major == major && plugin.minor <= minor }

    /// Orders by major, then minor.
    public static func < (left: SDKVersion, right: SDKVersion) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }
}
