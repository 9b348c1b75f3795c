import Foundation
import MicroappSDK

/// The framing of the feature protocol, pure (no I/O): a 4-byte big-endian length, then a `FeatureMessage` as
/// JSON. The host reads what a hostile child writes, so every bound is checked before the bytes are parsed.
public enum FeatureWire {
    /// The protocol version both sides speak; a child that answers another is cut off.
    public static let version = 1
    /// The largest frame either side accepts (a screen, a snapshot, a service response).
    public static let maximumFrame = 4 * 1024 * 1024
    /// The deepest nesting of arrays and objects accepted (screens nest stacks; each enum case adds two levels).
    public static let maximumDepth = 128
    /// The longest key, id or URL accepted in a message.
    public static let maximumName = 1024
    /// The longest log line or reason accepted.
    public static let maximumLine = 16 * 1024

    /// The frame for `message`.
    public static func encode(_ message: FeatureMessage) -> Data {
        let body = (try? JSONEncoder().encode(message)) ?? Data()
        var frame = Data(capacity: body.count + 4)
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { frame.append(contentsOf: $0) }
        frame.append(body)
        return frame
    }

    /// Decodes one frame's body, refusing (with the reason) what breaks a bound or is not a known message.
    public static func decode(body: some Collection<UInt8>) throws(FeatureWireError) -> FeatureMessage {
        guard body.count <= maximumFrame else {
            throw FeatureWireError("a frame of \(body.count) bytes, over the limit of \(maximumFrame)")
        }
        if let depth = nesting(exceeding: maximumDepth, in: body) {
            throw FeatureWireError("a message nested \(depth) deep, over the limit of \(maximumDepth)")
        }
        let message: FeatureMessage
        do {
            message = try JSONDecoder().decode(FeatureMessage.self, from: Data(body))
        } catch {
            throw FeatureWireError("a frame that is not a known message (\(summary(of: error)))")
        }
        try validate(message)
        return message
    }

    /// Refuses names, lines and reasons past their bounds.
    static func validate(_ message: FeatureMessage) throws(FeatureWireError) {
        var names: [String] = []
        var lines: [String] = []
        switch message {
        case .start(let state, let writable, let services): names = Array(state.keys) + writable + services
        case .willShow(let location), .screen(let location), .action(_, let location), .screenUpdate(let location, _):
            names = [location.url, location.pattern]
        case .stateChanged(let key, _), .stateWrite(let key, _), .serviceCall(_, let key, _): names = [key]
        case .navigate(.push(let url)), .navigate(.open(let url)): names = [url]
        case .refused(let line, let fix, let code): lines = [line, fix ?? "", code ?? ""]
        case .startFailed(let line), .log(let line), .restored(.some(let line)): lines = [line]
        default: break
        }
        if let long = names.first(where: { $0.utf8.count > maximumName }) {
            throw FeatureWireError("a name of \(long.utf8.count) bytes, over the limit of \(maximumName)")
        }
        if let long = lines.first(where: { $0.utf8.count > maximumLine }) {
            throw FeatureWireError("a line of \(long.utf8.count) bytes, over the limit of \(maximumLine)")
        }
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "not JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): "field '\(key.stringValue)' missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        default: "unreadable"
        }
    }

    /// The depth nesting first reaches past `limit`, or nil; brackets inside strings do not count.
    private static func nesting(exceeding limit: Int, in bytes: some Collection<UInt8>) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            if byte == 0x22 {
                inString = true
            } else if byte == 0x5B || byte == 0x7B {
                depth += 1
                if depth > limit { return depth }
            } else if byte == 0x5D || byte == 0x7D {
                depth -= 1
            }
        }
        return nil
    }
}

/// Reassembles frames from the bytes of a stream, one whole message at a time.
public struct FeatureFrameReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    /// An empty reader.
    public init() {}

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, nil until one has arrived; throws on a length over the bound (before its body is
    /// read) or a body that is not a valid message.
    public mutating func next() throws(FeatureWireError) -> FeatureMessage? {
        guard buffer.count - start >= 4 else { return nil }
        let length = buffer[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard length <= FeatureWire.maximumFrame else {
            throw FeatureWireError("a frame length of \(length) bytes, over the limit of \(FeatureWire.maximumFrame)")
        }
        guard buffer.count - start - 4 >= length else { return nil }
        let body = buffer[start + 4..<start + 4 + length]
        start += 4 + length
        if start > 65_536 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        return try FeatureWire.decode(body: body)
    }

    /// Bytes received that do not yet make a whole frame (a stream that ends with some was cut mid-frame).
    public var pendingBytes: Int { buffer.count - start }
}

/// A frame that breaks the protocol: what was wrong with it.
public struct FeatureWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. `a frame length of 4294967295 bytes, over the limit of 4194304`.
    public var reason: String

    /// Describes a refusal.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
