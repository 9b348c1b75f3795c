extension JSONValue {
    /// Why bytes are not one JSON value: where (line and column, counted from 1, columns in bytes) and what was wrong.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line of the byte where reading stopped.
        public let line: Int
        /// The column (in bytes) of that byte.
        public let column: Int
        /// What was wrong there.
        public let reason: String

        /// "line L, column C: reason".
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// The one JSON value `bytes` hold (RFC 8259), read by hand over the bytes: no JSONDecoder, so none of the dynamic
    /// casts by which it looks for the types it treats specially, each a scan of every loaded image's conformances
    /// after a `dlopen`. What JSONDecoder reads reads the same: white space and a UTF-8 byte-order mark around the
    /// value, a comma before a closing bracket or brace, a whole number in `Int64`'s range as an integer (`1e2`
    /// too). A key twice in one object, which JSONDecoder reads as its first, is refused.
    public init(parsing bytes: [UInt8]) throws(ParseError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(ParseError) -> JSONValue in
            var parser = JSONParser(bytes: buffer)
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == buffer.count else { throw parser.failure("more after the value") }
            return value
        }
    }
}

/// Reads JSON values from bytes, by their first byte.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// The error at the current byte.
    func failure(_ reason: String) -> JSONValue.ParseError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(index, bytes.count) where bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONValue.ParseError(line: line, column: index - lineStart + 1, reason: reason)
    }

    /// What the current byte is, for an error ("the end" past the last).
    private var found: String {
        guard index < bytes.count else { return "the end" }
        let byte = bytes[index]
        return (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    /// Steps past `byte` after any space, or fails naming what it expected.
    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONValue.ParseError) {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(what), found \(found)") }
        index += 1
    }

    /// True (and past it) when the next byte after any space is `byte`.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        skipSpace()
        guard depth < 64 else { throw failure("nested more than 64 deep") }
        guard index < bytes.count else { throw failure("expected a value, found the end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var object: [String: JSONValue] = [:]
            if take(UInt8(ascii: "}")) { return .object(object) }
            repeat {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}"), !object.isEmpty { break }
                let keyStart = index
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("expected a key in quotes, found \(found)")
                }
                let key = try string()
                try expect(UInt8(ascii: ":"), "':' after a key")
                let member = try value(depth: depth + 1)
                guard object.updateValue(member, forKey: key) == nil else {
                    index = keyStart
                    throw failure("the key \"\(key)\" appears twice in one object")
                }
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"), "',' or '}' in an object")
            return .object(object)
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            if take(UInt8(ascii: "]")) { return .array(items) }
            repeat {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]"), !items.isEmpty { break }
                items.append(try value(depth: depth + 1))
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"), "',' or ']' in an array")
            return .array(items)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value, found \(found)")
        }
    }

    private mutating func word(_ text: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw failure("expected a value, found \(found)") }
        index += expected.count
        return value
    }

    /// A number as the grammar has it: `-`, digits without a leading zero, then a fraction and an exponent if any.
    private mutating func number() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let firstDigit = index
        let count = digits()
        guard count > 0 else { throw failure("expected a digit, found \(found)") }
        guard count == 1 || bytes[firstDigit] != UInt8(ascii: "0") else {
            index = start
            throw failure("a number with a leading zero")
        }
        var whole = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            whole = false
            guard digits() > 0 else { throw failure("expected a digit after '.', found \(found)") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            whole = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw failure("expected a digit in the exponent, found \(found)") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if whole, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else {
            index = start
            throw failure("the number \(text) is out of range")
        }
        if number == number.rounded(), let integer = Int64(exactly: number) { return .integer(integer) }
        return .number(number)
    }

    /// Steps past a run of decimal digits; answers how many.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// A string from its opening quote: runs without escapes taken whole, checked to be UTF-8.
    private mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        var text = ""
        var runStart = index
        while true {
            guard index < bytes.count else { throw failure("a string not closed") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                guard let run = String(validating: bytes[runStart..<index], as: UTF8.self) else {
                    index = runStart
                    throw failure("a string that is not UTF-8")
                }
                text += run
                index += 1
                if byte == UInt8(ascii: "\"") { return text }
                text.unicodeScalars.append(try escaped())
                runStart = index
            case 0..<0x20: throw failure("a control character (byte \(byte)) in a string; write it escaped")
            default: index += 1
            }
        }
    }

    /// The character an escape after its `\` stands for (a surrogate pair's two `\u` escapes read together).
    private mutating func escaped() throws(JSONValue.ParseError) -> Unicode.Scalar {
        guard index < bytes.count else { throw failure("a string not closed") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xD800..<0xDC00).contains(unit) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("a lone surrogate \\u\(String(unit, radix: 16)) without its second half") }
                index += 2
                let low = try hexUnit()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("a surrogate pair's second half is not one")
                }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw failure("a lone surrogate \\u\(String(unit, radix: 16)) without its first half")
            }
            return scalar
        default:
            index -= 1
            throw failure("an unknown escape: \(found) after '\\'")
        }
    }

    /// The four hex digits of a `\u` escape.
    private mutating func hexUnit() throws(JSONValue.ParseError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexDigit(bytes[index]) else {
                throw failure("expected four hex digits after \\u, found \(found)")
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
