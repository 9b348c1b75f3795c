import Foundation

/// A `Decoder` with no input: it answers every question a type's `init(from:)` asks with a sample value and writes
/// down what was asked (which keys, which scalars, where `null` is allowed). What it writes down is the type's
/// `TypeShape`. A type whose decoding refuses the samples (a custom `init(from:)` that checks its input) is `opaque`.
final class ShapeRecorder: Decoder {
    /// Deeper than this (a recursive type), arrays stay empty and optional keys absent.
    static let depthLimit = 24

    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let depth: Int
    /// What has been read so far; `object` once a keyed container is asked for.
    var recorded: TypeShape?
    /// Whether `decodeNil` was asked of the single value: the value may be `null`.
    var nullable = false

    init(depth: Int) { self.depth = depth }

    var shape: TypeShape {
        let shape = recorded ?? .object([:])
        return nullable ? .optional(shape) : shape
    }

    static func shape<T: Decodable>(of type: T.Type) -> TypeShape {
        (try? sample(type, depth: 0).shape) ?? .opaque(typeName(type))
    }

    /// A value of `type` and the shape recorded while making it.
    static func sample<T: Decodable>(_ type: T.Type, depth: Int) throws -> (value: T, shape: TypeShape) {
        if let (value, shape) = known(type) { return (value, shape) }
        let recorder = ShapeRecorder(depth: depth + 1)
        let value: T
        do {
            value = try T(from: recorder)
        } catch {
            // An enum refuses the samples; asked only now, the conformance checks (a scan of every loaded image's
            // conformances until cached) cost nothing for the many types that decode.
            if let (value, shape) = enumeration(type) { return (value, shape) }
            throw error
        }
        if typeName(type).hasPrefix("Dictionary<") { return (value, .opaque(typeName(type))) }
        return (value, recorder.shape)
    }

    /// Types whose `init(from:)` checks what it reads (a URL, a UUID) get a real sample. The type is compared first
    /// and only its own sample is made: a new `UUID` for every type asked about read `/dev/urandom` each time, and
    /// every shape of a start-up asks about dozens.
    private static func known<T>(_ type: T.Type) -> (T, TypeShape)? {
        let sample: (Any, String)? =
            switch ObjectIdentifier(type) {
            case ObjectIdentifier(URL.self): (URL(fileURLWithPath: "/"), "URL")
            case ObjectIdentifier(UUID.self): (UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "UUID")
            case ObjectIdentifier(Date.self): (Date(timeIntervalSince1970: 0), "Date")
            case ObjectIdentifier(Data.self): (Data(), "Data")
            case ObjectIdentifier(Decimal.self): (Decimal(0), "Decimal")
            default: nil
            }
        guard let (value, name) = sample, let value = value as? T else { return nil }
        return (value, .scalar(name))
    }

    /// An enum whose `init(from:)` refused the samples: its first case, a scalar of its raw type or opaque.
    private static func enumeration<T>(_ type: T.Type) -> (T, TypeShape)? {
        guard let cases = type as? any CaseIterable.Type, let first = firstCase(cases) as? T else { return nil }
        guard let raw = type as? any RawRepresentable.Type else { return (first, .opaque(typeName(type))) }
        return (first, .scalar(rawName(raw)))
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }
    private static func rawName<R: RawRepresentable>(_ type: R.Type) -> String { typeName(R.RawValue.self) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if recorded == nil { recorded = .object([:]) }
        return KeyedDecodingContainer(Keyed<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(recorder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(recorder: self) }

    /// Records `shape` for `key` of the object being read.
    fileprivate func record(_ key: String, _ shape: TypeShape) {
        guard case .object(var fields) = recorded else { return }
        fields[key] = shape
        recorded = .object(fields)
    }

    /// A sample of `type` read at the next depth.
    fileprivate func read<T: Decodable>(_ type: T.Type) throws -> (value: T, shape: TypeShape) {
        guard depth < Self.depthLimit else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "too deep to describe"))
        }
        return try Self.sample(type, depth: depth)
    }
}

/// Samples for the scalars JSON carries, by the type asked for.
private func scalarSample<T>(_ type: T.Type) -> T? {
    let samples: [Any] = [
        "", false, 0 as Int, 0 as Int8, 0 as Int16, 0 as Int32, 0 as Int64, 0 as UInt, 0 as UInt8, 0 as UInt16,
        0 as UInt32, 0 as UInt64, 0 as Double, 0 as Float,
    ]
    // Compared by type identity, not cast one by one: a failing cast of every sample to every type asked about
    // showed up at start-up.
    let wanted = ObjectIdentifier(type)
    return samples.first { ObjectIdentifier(Swift.type(of: $0)) == wanted } as? T
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    /// Nil-able keys seen through `decodeNil`, so the value read next is recorded as optional.
    private let nullable = NullableKeys()

    init(recorder: ShapeRecorder) { self.recorder = recorder }

    func contains(_ key: Key) -> Bool { recorder.depth < ShapeRecorder.depthLimit }

    func decodeNil(forKey key: Key) throws -> Bool {
        nullable.keys.insert(key.stringValue)
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(scalar: type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(scalar: type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(scalar: type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(scalar: type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(scalar: type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(scalar: type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(scalar: type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(scalar: type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(scalar: type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(scalar: type, forKey: key) }
    private func decode<T: Decodable>(scalar type: T.Type, forKey key: Key) throws -> T {
        try decode(type, forKey: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, shape): (T, TypeShape)
        if let sample = scalarSample(type) {
            (value, shape) = (sample, .scalar(typeName(type)))
        } else {
            (value, shape) = try recorder.read(type)
        }
        recorder.record(key.stringValue, nullable.keys.contains(key.stringValue) ? .optional(shape) : shape)
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = ShapeRecorder(depth: recorder.depth + 1)
        let container = try nested.container(keyedBy: type)
        recorder.record(key.stringValue, .opaque("nested"))
        return container
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recorder.record(key.stringValue, .opaque("nested"))
        return try ShapeRecorder(depth: recorder.depth + 1).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ShapeRecorder(depth: recorder.depth + 1) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ShapeRecorder(depth: recorder.depth + 1) }
}

/// The keys a keyed container saw `decodeNil` for.
private final class NullableKeys {
    var keys: Set<String> = []
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var currentIndex = 0
    var count: Int? { recorder.depth < ShapeRecorder.depthLimit ? 1 : 0 }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    init(recorder: ShapeRecorder) {
        self.recorder = recorder
        recorder.recorded = .array(.opaque("unknown"))
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decode(scalar: type) }
    mutating func decode(_ type: String.Type) throws -> String { try decode(scalar: type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decode(scalar: type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decode(scalar: type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decode(scalar: type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decode(scalar: type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decode(scalar: type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decode(scalar: type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decode(scalar: type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decode(scalar: type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(scalar: type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(scalar: type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(scalar: type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(scalar: type) }
    private mutating func decode<T: Decodable>(scalar type: T.Type) throws -> T { try decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        if let sample = scalarSample(type) {
            recorder.recorded = .array(.scalar(typeName(type)))
            return sample
        }
        let (value, shape) = try recorder.read(type)
        recorder.recorded = .array(shape)
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        currentIndex += 1
        return try ShapeRecorder(depth: recorder.depth + 1).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return try ShapeRecorder(depth: recorder.depth + 1).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { ShapeRecorder(depth: recorder.depth + 1) }
}

private struct Single: SingleValueDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        recorder.nullable = true
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decode(scalar: type) }
    func decode(_ type: String.Type) throws -> String { try decode(scalar: type) }
    func decode(_ type: Double.Type) throws -> Double { try decode(scalar: type) }
    func decode(_ type: Float.Type) throws -> Float { try decode(scalar: type) }
    func decode(_ type: Int.Type) throws -> Int { try decode(scalar: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decode(scalar: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decode(scalar: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decode(scalar: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decode(scalar: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decode(scalar: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(scalar: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(scalar: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(scalar: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(scalar: type) }
    private func decode<T: Decodable>(scalar type: T.Type) throws -> T { try decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let sample = scalarSample(type) {
            recorder.recorded = .scalar(typeName(type))
            return sample
        }
        let (value, shape) = try recorder.read(type)
        recorder.recorded = shape
        return value
    }
}
