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

    /// Deepest nesting of arrays and objects the host reads (a manifest nests five deep); deeper is refused unparsed.
    public static let maximumDepth = 64

    /// Decodes a manifest, throwing a message that names the field at fault.
    public static func decode(_ json: String) throws(ManifestError) -> FeatureManifest {
        try decode(utf8: json.utf8)
    }

    /// Decodes a manifest from its bytes as a plugin exported them; bytes that are not UTF-8 are refused, never
    /// repaired, naming the offset of the first bad byte.
    public static func decode(utf8 bytes: some Collection<UInt8>) throws(ManifestError) -> FeatureManifest {
        guard bytes.count <= maximumSize else {
            throw ManifestError(reason: "it is \(bytes.count) bytes, over the limit of \(maximumSize)")
        }
        if let offset = firstInvalidUTF8(in: bytes) {
            let byte = String(bytes[bytes.index(bytes.startIndex, offsetBy: offset)], radix: 16, uppercase: true)
            throw ManifestError(
                reason: "it is not valid UTF-8: byte \(offset) (0x\(byte)) starts no character",
                fix:
                    "export the manifest with `MicroappEntry.export(MyFeature.self)`, which writes UTF-8, rather than a descriptor written by hand, and rebuild"
            )
        }
        if let depth = depth(exceeding: maximumDepth, in: bytes) {
            throw ManifestError(
                reason: "it nests arrays and objects \(depth) deep, over the limit of \(maximumDepth)",
                fix: "keep the manifest to identity, routes and keys; it needs no deeper nesting than the SDK writes")
        }
        let manifest: FeatureManifest
        do {
            manifest = try JSONDecoder().decode(FeatureManifest.self, from: Data(bytes))
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

    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or nil if there is none.
    private static func firstInvalidUTF8(in bytes: some Collection<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// The depth nesting first reaches past `limit`, or nil if it never does. Brackets inside strings do not count;
    /// the JSON parser itself reports unbalanced ones.
    private static func depth(exceeding limit: Int, in bytes: some Collection<UInt8>) -> Int? {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaping = false
        for byte in bytes {
            if inString {
                if escaping {
                    escaping = false
                } else if byte == UInt8(ascii: "\\") {
                    escaping = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest > limit ? deepest : nil
    }

    private static func validate(_ manifest: FeatureManifest) throws(ManifestError) {
        let idCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard !manifest.id.isEmpty, manifest.id.allSatisfy(idCharacters.contains) else {
            throw ManifestError(reason: "id '\(manifest.id)' is not lowercase letters, digits and '-'")
        }
        guard !manifest.routes.isEmpty else {
            throw ManifestError(reason: "it declares no routes, so the feature could never be shown")
        }
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-:.")
        for capability in manifest.capabilities
        where capability.rawValue.isEmpty || capability.rawValue.count > 64
            || !capability.rawValue.allSatisfy(nameCharacters.contains)
        {
            throw ManifestError(
                reason:
                    "capability '\(capability.rawValue.prefix(64))' is not 1 to 64 lowercase letters, digits, '-', ':' and '.'",
                fix: "declare capabilities with the SDK's constants (`.network`, `.scratchFiles`) and rebuild")
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
    /// What the plugin's author should do about it.
    public var fix = "fix the feature's `static var manifest` and rebuild"
}
