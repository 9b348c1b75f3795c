import MicroappCore
import MicroappSDK

// The probe cache read by hand: each record's fields asked for in the order `save()` writes them (`CompactCoding`
// sorts keys) and built with the types' own initializers, no `Decoder` in between. A start reads the cache before
// anything else, and one record cost 0.17 M instructions through `init(from:)`, a third of a `dlopen`.
//
// What this reader does not know (keys in another order or unknown to it, an empty capability list a manifest
// can only hold through its `Codable` form, a field of a later SDK) it does not guess at: `stored(in:)` hands those
// bytes to the `Codable` walk, which reads them as before. So every cache of this version reads as it did.
extension ProbeCache {
    /// What `body` (the compact form after the first line) holds when this reader knows all of it; nil otherwise.
    static func handRead(_ body: [UInt8]) -> Stored? {
        body.withUnsafeBufferPointer { buffer in
            var reader = CompactReader(buffer)
            guard let stored = try? Self.stored(&reader), reader.isAtEnd else { return nil }
            return stored
        }
    }

    /// `Listed` (the file's top level), its lists made the maps `Stored` keeps (the last entry for a key wins).
    private static func stored(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> Stored {
        try reader.expect(UInt8(ascii: "d"))
        var stored = Stored()
        if reader.key("handshakes"), !reader.null() {
            stored.handshakes = try entries(&reader) { (reader) throws(CompactReader.Mismatch) in
                try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
                    try reader.expectKey("description")
                    let description = try libraryDescription(&reader)
                    return Handshake(sha256: try reader.string(at: "sha256"), description: description)
                }
            }
        }
        try reader.expectKey("libraries")
        stored.libraries = try entries(&reader, text)
        try reader.expectKey("records")
        stored.records = try entries(&reader, record)
        stored.version = try reader.int(at: "version")
        guard reader.end() else { throw CompactReader.Mismatch() }
        return stored
    }

    /// A list of `{key, value}` entries as a map.
    private static func entries<Value>(
        _ reader: inout CompactReader, _ value: (inout CompactReader) throws(CompactReader.Mismatch) -> Value
    ) throws(CompactReader.Mismatch) -> [String: Value] {
        let pairs = try reader.list { (reader) throws(CompactReader.Mismatch) in
            try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
                let key = try reader.string(at: "key")
                try reader.expectKey("value")
                return (key, try value(&reader))
            }
        }
        return Dictionary(pairs) { $1 }
    }

    /// A dictionary whose entries `body` reads, every one: a key it does not ask for is a mismatch.
    private static func dictionary<Value>(
        _ reader: inout CompactReader, _ body: (inout CompactReader) throws(CompactReader.Mismatch) -> Value
    ) throws(CompactReader.Mismatch) -> Value {
        try reader.expect(UInt8(ascii: "d"))
        let value = try body(&reader)
        guard reader.end() else { throw CompactReader.Mismatch() }
        return value
    }

    /// The value of the optional field `name` when it comes next: nil when absent or nil.
    private static func optional<Value>(
        _ reader: inout CompactReader, _ name: StaticString,
        _ value: (inout CompactReader) throws(CompactReader.Mismatch) -> Value
    ) throws(CompactReader.Mismatch) -> Value? {
        guard reader.key(name), !reader.null() else { return nil }
        return try value(&reader)
    }

    /// A string, as a function to hand to `list`, `entries` and `optional`.
    private static func text(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> String {
        try reader.string()
    }

    private static func record(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> ProbeRecord {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            let description = try optional(&reader, "description", libraryDescription)
            let problem = try optional(&reader, "problem", problem)
            return ProbeRecord(usable: try reader.bool(at: "usable"), problem: problem, description: description)
        }
    }

    private static func problem(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> Problem {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            let code = try reader.string(at: "code")
            let fix = try reader.string(at: "fix")
            let reason = try reader.string(at: "reason")
            return Problem(
                Problem.Code(rawValue: code), subject: try reader.string(at: "subject"), reason: reason, fix: fix)
        }
    }

    private static func libraryDescription(
        _ reader: inout CompactReader
    ) throws(CompactReader.Mismatch) -> LibraryDescription {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            try reader.expectKey("manifest")
            let manifest = try manifest(&reader)
            return LibraryDescription(manifest: manifest, recordedSDK: try reader.string(at: "sdkVersion"))
        }
    }

    private static func manifest(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> FeatureManifest {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            let capabilities = try optional(&reader, "capabilities") { (reader) throws(CompactReader.Mismatch) in
                try reader.list { (reader) throws(CompactReader.Mismatch) in Capability(rawValue: try reader.string()) }
            }
            // Only `init(from:)` keeps an empty list apart from none (the setter makes it none), and a manifest
            // compared with the library's own must be the same value: the `Codable` walk reads this one.
            guard capabilities?.isEmpty != true else { throw CompactReader.Mismatch() }
            let displayName = try reader.string(at: "displayName")
            let hasMocks = try reader.bool(at: "hasMocks")
            let id = try reader.string(at: "id")
            try reader.expectKey("provides")
            let provides = try reader.list(provision)
            try reader.expectKey("requirements")
            let requirements = try reader.list(requirement)
            try reader.expectKey("routes")
            let routes = try reader.list(route)
            let tab = try optional(&reader, "tab", tab)
            try reader.expectKey("version")
            var manifest = FeatureManifest(
                id: id, version: try reader.int(), displayName: displayName, routes: routes,
                requirements: requirements, provides: provides, hasMocks: hasMocks, tab: tab)
            if let capabilities { manifest.capabilities = capabilities }
            return manifest
        }
    }

    private static func route(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> RouteDeclaration {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            let isSignIn = try reader.bool(at: "isSignIn")
            let pattern = try reader.string(at: "pattern")
            return RouteDeclaration(
                pattern, requiresSession: try reader.bool(at: "requiresSession"), isSignIn: isSignIn)
        }
    }

    private static func tab(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> TabDeclaration {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            let order = try reader.int(at: "order")
            let route = try reader.string(at: "route")
            return TabDeclaration(title: try reader.string(at: "title"), route: route, order: order)
        }
    }

    private static func requirement(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> Requirement {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            var requirement = blankRequirement
            guard let access = Access(rawValue: try reader.string(at: "access")) else { throw CompactReader.Mismatch() }
            requirement.access = access
            requirement.isOptional = try reader.bool(at: "isOptional")
            requirement.key = try reader.string(at: "key")
            guard let kind = DependencyKind(rawValue: try reader.string(at: "kind")) else {
                throw CompactReader.Mismatch()
            }
            requirement.kind = kind
            requirement.shape = try optional(&reader, "shape", text)
            requirement.type = try reader.string(at: "type")
            return requirement
        }
    }

    private static func provision(_ reader: inout CompactReader) throws(CompactReader.Mismatch) -> Provision {
        try dictionary(&reader) { (reader) throws(CompactReader.Mismatch) in
            var provision = blankProvision
            provision.key = try reader.string(at: "key")
            provision.shape = try optional(&reader, "shape", text)
            provision.summary = try optional(&reader, "summary", text)
            provision.type = try reader.string(at: "type")
            try reader.expectKey("uses")
            provision.uses = try reader.list(text)
            return provision
        }
    }
}

/// A service whose shape and type name cost next to nothing to work out: the SDK makes requirements and provisions
/// only from keys, so the reader starts each from one made of this, then sets every field from the record.
private struct BlankService: ServiceProtocol {
    var erased: ErasedService
    init(erased: ErasedService) { self.erased = erased }
    static var shape: TypeShape { .scalar("") }
}

/// Where each requirement the reader builds starts (every field is then set).
private let blankRequirement = DependencyKey<BlankService>.service("").requirement
/// Where each provision the reader builds starts (every field is then set).
private let blankProvision = Provision(DependencyKey<BlankService>.service(""))
