import Foundation

/// The one encoding of every signed document: JSON with sorted keys, no escaped slashes, dates as ISO 8601 seconds.
/// A signature covers the exact bytes written, and a verifier checks those bytes before decoding them, so no
/// re-encoding ever has to reproduce them; sorting only makes the same document encode the same way twice.
public enum CanonicalJSON {
    /// The canonical bytes of `value`.
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// The value encoded in `data`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: data)
    }
}
