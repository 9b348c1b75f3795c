/// Reads `CompactCoding`'s form value by value, straight into the caller's types: a hand reader for one record type
/// asks for the key, string, integer or list it expects next and builds its values as it goes, with no tree of
/// values and no `Decoder` in between (the probe cache's record through `init(from:)` cost 0.17 M instructions, more
/// than anything else a warm start reads). It accepts only what it is asked for: the first thing that is not is a
/// `Mismatch`, after which the caller reads the bytes some other way or not at all.
package struct CompactReader {
    /// The bytes did not hold what the reader was asked for next.
    package struct Mismatch: Error {
        /// A mismatch.
        package init() {}
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next value starts.
    package private(set) var index = 0

    /// A reader at the start of `bytes`, which must outlive it.
    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Whether every byte was read.
    package var isAtEnd: Bool { index == bytes.count }

    /// The next byte, nil at the end.
    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Steps past the next byte when it is `byte`; whether it was.
    package mutating func take(_ byte: UInt8) -> Bool {
        guard next == byte else { return false }
        index += 1
        return true
    }

    /// Steps past the next byte, which must be `byte`.
    package mutating func expect(_ byte: UInt8) throws(Mismatch) {
        guard take(byte) else { throw Mismatch() }
    }

    /// Steps past `n` (nil) when it comes next; whether it did.
    package mutating func null() -> Bool { take(UInt8(ascii: "n")) }

    /// Steps past the `e` that ends a list or dictionary when it comes next; whether it did.
    package mutating func end() -> Bool { take(UInt8(ascii: "e")) }

    /// A boolean (`t` or `f`).
    package mutating func bool() throws(Mismatch) -> Bool {
        if take(UInt8(ascii: "t")) { return true }
        try expect(UInt8(ascii: "f"))
        return false
    }

    /// An integer (`i…e`).
    package mutating func int() throws(Mismatch) -> Int {
        try expect(UInt8(ascii: "i"))
        return try integer(until: UInt8(ascii: "e"))
    }

    /// A string (`4:auth`); bytes that are not UTF-8 are decoded as `String(decoding:as:)` repairs them.
    package mutating func string() throws(Mismatch) -> String {
        guard let first = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw Mismatch() }
        let count = try integer(until: UInt8(ascii: ":"))
        guard count <= bytes.count - index else { throw Mismatch() }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + count]), as: UTF8.self)
        index += count
        return text
    }

    /// Steps past the dictionary key `name` when it comes next (keys are written in order, so a reader asks for them
    /// in order); whether it did. Compared as bytes: no string is made.
    package mutating func key(_ name: StaticString) -> Bool {
        let start = index
        guard let count = try? integer(until: UInt8(ascii: ":")), count == name.utf8CodeUnitCount,
            count <= bytes.count - index,
            name.withUTF8Buffer({ $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[index..<index + count])) })
        else {
            index = start
            return false
        }
        index += count
        return true
    }

    /// Steps past the dictionary key `name`, which must come next.
    package mutating func expectKey(_ name: StaticString) throws(Mismatch) {
        guard key(name) else { throw Mismatch() }
    }

    /// The string of the dictionary key `name`, which must come next.
    package mutating func string(at name: StaticString) throws(Mismatch) -> String {
        try expectKey(name)
        return try string()
    }

    /// The boolean of the dictionary key `name`, which must come next.
    package mutating func bool(at name: StaticString) throws(Mismatch) -> Bool {
        try expectKey(name)
        return try bool()
    }

    /// The integer of the dictionary key `name`, which must come next.
    package mutating func int(at name: StaticString) throws(Mismatch) -> Int {
        try expectKey(name)
        return try int()
    }

    /// A list (`l…e`), each item read by `item`.
    package mutating func list<Item>(
        _ item: (inout CompactReader) throws(Mismatch) -> Item
    ) throws(Mismatch) -> [Item] {
        try expect(UInt8(ascii: "l"))
        var items: [Item] = []
        while !end() {
            guard next != nil else { throw Mismatch() }
            items.append(try item(&self))
        }
        return items
    }

    /// A decimal integer (an optional `-`, 1 to 18 digits) up to `end`, which it steps past.
    mutating func integer(until end: UInt8) throws(Mismatch) -> Int {
        let negative = take(UInt8(ascii: "-"))
        var number = 0
        var digits = 0
        while let byte = next, byte != end {
            let digit = Int(byte) - Int(UInt8(ascii: "0"))
            guard (0...9).contains(digit), digits < 18 else { throw Mismatch() }
            number = number * 10 + digit
            digits += 1
            index += 1
        }
        guard next != nil, digits > 0 else { throw Mismatch() }
        index += 1
        return negative ? -number : number
    }
}
