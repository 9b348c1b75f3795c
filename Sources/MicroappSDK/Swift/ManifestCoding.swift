import Foundation

/// The one JSON form of manifests, shared by plugins (encode) and the host (decode).
public enum ManifestCoding {
    /// Largest manifest the host reads; a bigger one is refused rather than parsed.
    public static let maximumSize = 256 * 1024

    /// The manifest as compact JSON with sorted keys.
    public static func encode(_ manifest: FeatureManifest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(manifest), as: UTF8.self)
    }

    /// Decodes a manifest, throwing a message that names the field at fault.
    public static func decode(_ json: String) throws(ManifestError) -> FeatureManifest {
        guard json.utf8.count <= maximumSize else {
            throw ManifestError(reason: "it is \(json.utf8.count) bytes, over the limit of \(maximumSize)")
        }
        let manifest: FeatureManifest
        do {
            manifest = try JSONDecoder().decode(FeatureManifest.self, from: Data(json.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            throw ManifestError(reason: "it is not valid JSON (\(context.debugDescription))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ManifestError(reason: "field '\(path(context.codingPath + [key]))' is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ManifestError(reason: "field '\(path(context.codingPath))' has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ManifestError(reason: "field '\(path(context.codingPath))' is null")
        } catch {
            throw ManifestError(reason: "it could not be read (\(error))")
        }
        try validate(manifest)
        return manifest
    }

    private static func validate(_ manifest: FeatureManifest) throws(ManifestError) {
        let idCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard !manifest.id.isEmpty, manifest.id.allSatisfy(idCharacters.contains) else {
            throw ManifestError(reason: "id '\(manifest.id)' is not lowercase letters, digits and '-'")
        }
        guard !manifest.routes.isEmpty else {
            throw ManifestError(reason: "it declares no routes, so the feature could never be shown")
        }
        if let tab = manifest.tab {
            guard !tab.title.allSatisfy(\.isWhitespace) else {
                throw ManifestError(reason: "tab.title is empty, so the tab would show nothing")
            }
            let route = try? RoutePattern(tab.route)
            guard let route, route.segments.allSatisfy({ if case .literal = $0 { true } else { false } }),
                manifest.routes.contains(where: { $0.pattern == tab.route })
            else {
                throw ManifestError(
                    reason: "tab.route '\(tab.route)' is not one of the feature's routes without parameters")
            }
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { path, key in
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }
}

/// Why a manifest was refused.
public struct ManifestError: Error, Sendable, Equatable {
    /// What is wrong with it.
    public var reason: String
}
