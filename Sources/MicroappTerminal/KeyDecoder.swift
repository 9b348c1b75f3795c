/// A key press, decoded from the bytes a terminal sends in raw mode.
enum Key: Equatable, Sendable {
    case up, down, left, right
    case home, end, pageUp, pageDown, delete
    case tab, shiftTab, enter, escape, backspace
    /// Ctrl-C: quit, even while a field is focused.
    case interrupt
    /// Ctrl-D.
    case endOfInput
    /// Ctrl-R: roll the feature on screen back to its previous version (after a hot swap).
    case controlR
    /// Ctrl-O: open a route by URL (the address bar), even while a field is focused.
    case controlO
    /// Ctrl-L: open or close the log of what isolated features printed, even while a field is focused.
    case controlL
    /// Alt (Meta) with a digit, sent by terminals as ESC then the digit: pick a tab, even while a field is focused.
    case alt(Character)
    /// A printable character (any UTF-8 character, not a control).
    case character(Character)
}

/// Decodes raw terminal bytes into keys. Bytes that may start a longer sequence (a lone ESC, half of a UTF-8
/// character) stay pending until more bytes come or the caller says no more are coming (`flush`), so a lone
/// Esc is told apart from an arrow key's `ESC [ A` by a short timeout in the reader.
struct KeyDecoder {
    private(set) var pending: [UInt8] = []

    /// Adds `bytes` and returns the keys they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// No more bytes are coming for now: whatever is pending is decoded as it stands (ESC alone is Esc).
    mutating func flush() -> [Key] {
        decode(final: true)
    }

    private mutating func decode(final: Bool) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.key(in: pending[index...], final: final) else { break }
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The key at the start of `bytes` and how many bytes it used; nil when more bytes are needed. A nil key
    /// with a length skips bytes that mean nothing here.
    static func key(in bytes: ArraySlice<UInt8>, final: Bool) -> (Key?, Int)? {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B: return escapeSequence(bytes, final: final)
        case 0x09: return (.tab, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x03: return (.interrupt, 1)
        case 0x04: return (.endOfInput, 1)
        case 0x12: return (.controlR, 1)
        case 0x0F: return (.controlO, 1)
        case 0x0C: return (.controlL, 1)
        case 0x00..<0x20: return (nil, 1)
        case 0x20..<0x7F: return (.character(Character(Unicode.Scalar(first))), 1)
        default: return utf8Character(bytes, final: final)
        }
    }

    private static func escapeSequence(_ bytes: ArraySlice<UInt8>, final: Bool) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count > 1 else { return final ? (.escape, 1) : nil }
        let second = bytes[start + 1]
        switch second {
        case UInt8(ascii: "["):
            // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, then a final byte 0x40–0x7E.
            var end = start + 2
            while end < bytes.endIndex, (0x20...0x3F).contains(bytes[end]) { end += 1 }
            guard end < bytes.endIndex else { return final ? (.escape, 1) : nil }
            guard (0x40...0x7E).contains(bytes[end]) else { return (.escape, 1) }
            let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
            return (csiKey(final: bytes[end], parameters: parameters), end - start + 1)
        case UInt8(ascii: "O"):
            guard bytes.count > 2 else { return final ? (.escape, 1) : nil }
            let key: Key? =
                switch bytes[start + 2] {
                case UInt8(ascii: "A"): .up
                case UInt8(ascii: "B"): .down
                case UInt8(ascii: "C"): .right
                case UInt8(ascii: "D"): .left
                case UInt8(ascii: "H"): .home
                case UInt8(ascii: "F"): .end
                default: nil
                }
            return (key, 3)
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            return (.alt(Character(Unicode.Scalar(second))), 2)
        default:
            // Alt+key or Esc typed before another key: Esc, then the next byte on its own.
            return (.escape, 1)
        }
    }

    private static func csiKey(final: UInt8, parameters: String) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .shiftTab
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default: return nil
        }
    }

    private static func utf8Character(_ bytes: ArraySlice<UInt8>, final: Bool) -> (Key?, Int)? {
        let first = bytes[bytes.startIndex]
        let length =
            switch first {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard length > 0 else { return (nil, 1) }
        let encoded = bytes.prefix(length)
        guard encoded.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return (nil, 1) }
        guard bytes.count >= length else { return final ? (nil, bytes.count) : nil }
        guard let scalar = String(validating: encoded, as: UTF8.self)?.unicodeScalars.first
        else { return (nil, 1) }
        return (.character(Character(scalar)), length)
    }
}
