import Foundation
import MicroappPlatform

/// The file name of a feature's library, made and read in one place: `lib<Name>.so`. The SDK's own library sits
/// beside the features' but is never one of them.
public enum PluginFileName {
    /// The SDK's library, `libMicroappSDK.so`.
    public static let sdk = "libMicroappSDK.so"

    /// `libAuth.so` for the feature `Auth`.
    public static func make(_ feature: String) -> String { "lib\(feature).so" }

    /// `Auth` for `libAuth.so` or `/…/libAuth.so`; nil for any other file name and for the SDK's library.
    public static func feature(of path: String) -> String? {
        let file = (path as NSString).lastPathComponent
        guard file.hasPrefix("lib"), file.hasSuffix(".so"), file.count > 6, file != sdk else { return nil }
        return String(file.dropFirst(3).dropLast(3))
    }

    /// True when `path` names a feature's library (not the SDK's).
    public static func isPlugin(_ path: String) -> Bool { feature(of: path) != nil }
}
