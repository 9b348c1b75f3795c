/// A compact form of `Codable` values that needs no JSON decoder to read: bencode's length-prefixed strings
/// (`4:auth`), integers (`i3e`), lists (`l…e`) and dictionaries (`d…e`, string keys in order), with `n`, `t` and `f`
/// for nil and the booleans. A warm start reads its probe cache in it: decoding walks the values by the types' own
/// `init(from:)`, without the dynamic casts by which JSONDecoder looks for the types it treats specially (each a scan
/// of every loaded image's protocol conformances after a `dlopen`). Strings, `Int`, `Bool`, nil, arrays, structs and
/// dictionaries keyed by strings; any other number is refused when written. Errors name no field (the coding path is
/// not kept, which would cost an allocation a field): what does not decode is thrown away whole and made again.
package enum CompactCoding {
    /// `value` in the compact form.
    package static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let slot = Slot()
        try slot.put(value, path: [], nesting: 0)
        var bytes: [UInt8] = []
        slot.value.write(into: &bytes)
        return bytes
    }

    /// The value of `type` that `bytes` hold whole (nothing before or after it); throws `DecodingError` when they are
    /// not one, are cut short, or hold values of other types.
    package static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        let value = try bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(scalars: CompactReader(buffer))
            let value = try reader.value(depth: 0)
            guard reader.scalars.isAtEnd else { throw Reader.corrupt("bytes after the value") }
            return value
        }
        return try value.decode(type, path: [], nesting: 0)
    }
}

/// One value of the compact form, read whole.
private indirect enum CompactValue {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case list([CompactValue])
    /// Entries in the order written (keys sorted); looked up by a linear search, cheaper than hashing for the few
    /// keys of a record.
    case dictionary([CompactEntry])

    func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(UInt8(ascii: "n"))
        case .bool(let flag): bytes.append(UInt8(ascii: flag ? "t" : "f"))
        case .int(let number): bytes += Array("i\(number)e".utf8)
        case .string(let text):
            bytes += Array("\(text.utf8.count):".utf8)
            bytes += Array(text.utf8)
        case .list(let items):
            bytes.append(UInt8(ascii: "l"))
            for item in items { item.write(into: &bytes) }
            bytes.append(UInt8(ascii: "e"))
        case .dictionary(let entries):
            bytes.append(UInt8(ascii: "d"))
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                CompactValue.string(entry.key).write(into: &bytes)
                entry.value.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "e"))
        }
    }

    /// The value as `type`: the three scalars by metatype comparison (no dynamic cast to a protocol), anything else by
    /// its own `init(from:)`. `nesting` counts decoders made for this same value: a type that comes back for it again
    /// and again (a number of a kind the form does not hold) is refused instead of recursing.
    func decode<Value: Decodable>(_ type: Value.Type, path: [any CodingKey], nesting: Int) throws -> Value {
        switch self {
        case .string(let text) where Value.self == String.self: return text as! Value
        case .int(let number) where Value.self == Int.self: return number as! Value
        case .bool(let flag) where Value.self == Bool.self: return flag as! Value
        default:
            guard nesting < 4 else {
                throw DecodingError.typeMismatch(
                    Value.self, .init(codingPath: path, debugDescription: "not a value of this type"))
            }
            return try Value(from: ValueDecoder(value: self, codingPath: path, nesting: nesting + 1))
        }
    }
}

/// A dictionary's entry.
private struct CompactEntry {
    let key: String
    let value: CompactValue
}

/// Reads one value from bytes whole, by its first byte; its scalars by `CompactReader`.
private struct Reader {
    var scalars: CompactReader

    static func corrupt(_ what: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "not the compact form: \(what)"))
    }

    mutating func value(depth: Int) throws -> CompactValue {
        guard depth < 64 else { throw Self.corrupt("nested too deep") }
        guard let first = scalars.next else { throw Self.corrupt("cut short") }
        let at = scalars.index
        do {
            switch first {
            case UInt8(ascii: "n"):
                _ = scalars.null()
                return .null
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try scalars.bool())
            case UInt8(ascii: "i"): return .int(try scalars.int())
            case UInt8(ascii: "l"):
                _ = scalars.take(first)
                var items: [CompactValue] = []
                while try !atEnd() { items.append(try value(depth: depth + 1)) }
                return .list(items)
            case UInt8(ascii: "d"):
                _ = scalars.take(first)
                var entries: [CompactEntry] = []
                while try !atEnd() {
                    guard case .string(let key) = try value(depth: depth + 1) else {
                        throw Self.corrupt("a key not a string")
                    }
                    entries.append(CompactEntry(key: key, value: try value(depth: depth + 1)))
                }
                return .dictionary(entries)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return .string(try scalars.string())
            default: throw Self.corrupt("byte \(first) at \(at)")
            }
        } catch is CompactReader.Mismatch {
            throw Self.corrupt("a bad or cut-short value at \(at)")
        }
    }

    /// True (and past it) at the `e` that ends a list or dictionary.
    private mutating func atEnd() throws -> Bool {
        guard scalars.next != nil else { throw Self.corrupt("cut short") }
        return scalars.end()
    }
}

/// Decodes a type from one value by the type's own `init(from:)`.
private struct ValueDecoder: Decoder {
    let value: CompactValue
    let codingPath: [any CodingKey]
    let nesting: Int
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else {
            throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "not a dictionary"))
        }
        return KeyedDecodingContainer(Entries<Key>(entries: entries, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .list(let items) = value else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "not a list"))
        }
        return Items(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { if case .null = value { true } else { false } }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try value.decode(type, path: codingPath, nesting: nesting)
    }
}

/// A dictionary's entries, read by key.
private struct Entries<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: [CompactEntry]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { lookUp(key) != nil }

    private func lookUp(_ key: Key) -> CompactValue? {
        let name = key.stringValue
        return entries.first { $0.key == name }?.value
    }

    private func entry(_ key: Key) throws -> CompactValue {
        guard let value = lookUp(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no such key"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { if case .null = try entry(key) { true } else { false } }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try entry(key).decode(type, path: codingPath, nesting: 0)
    }

    func nestedContainer<Nested: CodingKey>(
        keyedBy type: Nested.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<Nested> {
        try ValueDecoder(value: entry(key), codingPath: codingPath, nesting: 0).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: entry(key), codingPath: codingPath, nesting: 0).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: .dictionary(entries), codingPath: codingPath, nesting: 0)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: try entry(key), codingPath: codingPath, nesting: 0)
    }
}

/// A list's items, read in order.
private struct Items: UnkeyedDecodingContainer {
    let items: [CompactValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> CompactValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "list ended"))
        }
        currentIndex += 1
        return items[currentIndex - 1]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try next().decode(type, path: codingPath, nesting: 0)
    }

    mutating func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) throws -> KeyedDecodingContainer<Nested>
    {
        try ValueDecoder(value: next(), codingPath: codingPath, nesting: 0).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: next(), codingPath: codingPath, nesting: 0).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        ValueDecoder(value: try next(), codingPath: codingPath, nesting: 0)
    }
}

/// Where an encoded value goes: a scalar, or the slots of a list or dictionary its containers fill.
private final class Slot {
    private var scalar: CompactValue = .null
    private var items: [Slot]?
    private var entries: [String: Slot]?

    var value: CompactValue {
        if let items { return .list(items.map(\.value)) }
        if let entries { return .dictionary(entries.map { CompactEntry(key: $0.key, value: $0.value.value) }) }
        return scalar
    }

    func setNil() { scalar = .null }

    /// Puts `value` here: the three scalars as themselves, anything else by its own `encode(to:)`; other numbers (and
    /// a type that comes back for this slot again and again) are refused.
    func put<Value: Encodable>(_ value: Value, path: [any CodingKey], nesting: Int) throws {
        switch value {
        case let text as String: scalar = .string(text)
        case let number as Int: scalar = .int(number)
        case let flag as Bool: scalar = .bool(flag)
        default:
            guard nesting < 4, !(value is any BinaryInteger), !(value is any BinaryFloatingPoint) else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: path, debugDescription: "the compact form holds no \(Value.self)"))
            }
            try value.encode(to: SlotEncoder(slot: self, codingPath: path, nesting: nesting + 1))
        }
    }

    /// A new slot at the end of this list.
    func appended() -> Slot {
        let slot = Slot()
        items = (items ?? []) + [slot]
        return slot
    }

    /// The slot for `key` in this dictionary (made when new).
    func entry(_ key: String) -> Slot {
        if let slot = entries?[key] { return slot }
        let slot = Slot()
        entries = (entries ?? [:])
        entries?[key] = slot
        return slot
    }

    func makeList() { if items == nil { items = [] } }
    func makeDictionary() { if entries == nil { entries = [:] } }
    var listCount: Int { items?.count ?? 0 }
}

/// Encodes a type into one slot by the type's own `encode(to:)`.
private struct SlotEncoder: Encoder, SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    let nesting: Int
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeDictionary()
        return KeyedEncodingContainer(EntrySlots<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeList()
        return ItemSlots(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { slot.setNil() }

    func encode<Value: Encodable>(_ value: Value) throws { try slot.put(value, path: codingPath, nesting: nesting) }
}

/// A dictionary's slots, filled by key.
private struct EntrySlots<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) { slot.entry(key.stringValue).setNil() }

    func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try slot.entry(key.stringValue).put(value, path: codingPath, nesting: 0)
    }

    func nestedContainer<Nested: CodingKey>(
        keyedBy type: Nested.Type, forKey key: Key
    ) -> KeyedEncodingContainer<Nested> {
        SlotEncoder(slot: slot.entry(key.stringValue), codingPath: codingPath, nesting: 0).container(
            keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: slot.entry(key.stringValue), codingPath: codingPath, nesting: 0).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { SlotEncoder(slot: slot.entry("super"), codingPath: codingPath, nesting: 0) }

    func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: slot.entry(key.stringValue), codingPath: codingPath, nesting: 0)
    }
}

/// A list's slots, filled in order.
private struct ItemSlots: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    var count: Int { slot.listCount }

    func encodeNil() { slot.appended().setNil() }

    func encode<Value: Encodable>(_ value: Value) throws {
        try slot.appended().put(value, path: codingPath, nesting: 0)
    }

    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) -> KeyedEncodingContainer<Nested> {
        SlotEncoder(slot: slot.appended(), codingPath: codingPath, nesting: 0).container(keyedBy: type)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        SlotEncoder(slot: slot.appended(), codingPath: codingPath, nesting: 0).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { SlotEncoder(slot: slot.appended(), codingPath: codingPath, nesting: 0) }
}
