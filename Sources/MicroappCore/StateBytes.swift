import Foundation
import MicroappSDK

/// Any JSON value, so shared state can be held and compared as data by code that does not know its Swift type:
/// the host's side of an isolated feature's grants, and the child's copy of the host's state.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes whichever JSON value is there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as it was read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value `bytes` hold, nil when they are not JSON.
    public init?(bytes: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: bytes) else { return nil }
        self = value
    }

    /// The value as JSON with sorted keys (equal values are equal bytes).
    public var bytes: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}

/// One piece of shared state a feature was granted, seen as JSON bytes: what the host sends an isolated feature.
/// It goes through the SDK's own grant (a `FeatureContext` asked for a `JSONValue` copy), so a write is checked
/// against the holder's type exactly as an in-process owner's is, and a read grant never yields a writer.
@MainActor
public struct StateBytes {
    /// The JSON of the current value.
    public var current: Data { read() }
    /// True when the grant is read-write (the state's one owner).
    public let writable: Bool
    private let read: () -> Data
    private let listen: (@escaping (Data) -> Void) -> Observation
    private let write: ((Data) -> Void)?

    /// The state `requirement` names in `source`, nil when `source` grants none or its value is not JSON.
    public init?(_ requirement: Requirement, in source: any DependencySource) {
        let key = DependencyKey<JSONValue>.state(requirement.key, access: requirement.access)
        let manifest = FeatureManifest(
            id: "isolated", version: 1, displayName: "isolated", routes: [], requirements: [key.requirement])
        let context = FeatureContext(
            manifest: manifest, source: Forwarding(requirement: requirement, source: source),
            navigation: NoNavigation(), invalidate: {})
        if requirement.access == .readWrite, let property = try? context.property(key) {
            writable = true
            read = { property.value.bytes }
            listen = { receive in property.observe { receive($0.bytes) } }
            write = { bytes in if let value = JSONValue(bytes: bytes) { property.value = value } }
        } else if let value = try? context.value(key) {
            writable = false
            read = { value.value.bytes }
            listen = { receive in value.observe { receive($0.bytes) } }
            write = nil
        } else {
            return nil
        }
    }

    /// Calls `onChange` with the JSON of each new value until the observation ends.
    public func observe(_ onChange: @escaping (Data) -> Void) -> Observation { listen(onChange) }

    /// Writes `bytes` (only a read-write grant can; a value that does not decode as the holder's type is dropped by
    /// the grant). Answers false when the grant is read-only.
    public func set(_ bytes: Data) -> Bool {
        guard let write else { return false }
        write(bytes)
        return true
    }
}

/// Answers the `JSONValue` copy's requirement with the grant of the real one.
@MainActor
private final class Forwarding: DependencySource {
    let requirement: Requirement
    let source: any DependencySource

    init(requirement: Requirement, source: any DependencySource) {
        self.requirement = requirement
        self.source = source
    }

    func value(for _: Requirement) -> Any? { source.value(for: requirement) }
}

/// A back stack that goes nowhere, for contexts that only read state.
@MainActor
final class NoNavigation: NavigationHost {
    func push(_ url: String) {}
    func pop() {}
    func popToRoot() {}
    func open(_ url: String) {}
}
