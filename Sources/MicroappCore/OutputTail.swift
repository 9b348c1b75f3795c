/// The last lines a child wrote to a stream (its stderr), bounded however much it writes: lines are cut at
/// `lineLimit` characters, only the last `count` are kept, and terminal escape sequences and other control
/// characters are removed, so what a plugin printed can be shown in a message or a JSON line as plain text.
public struct OutputTail: Sendable {
    /// How many lines are kept.
    public let count: Int
    /// How many characters of one line are kept.
    public let lineLimit: Int
    private var kept: [String] = []
    private var partial: [UInt8] = []

    /// An empty tail keeping the last `count` lines of at most `lineLimit` characters.
    public init(count: Int = 20, lineLimit: Int = 300) {
        self.count = count
        self.lineLimit = lineLimit
    }

    /// Takes more bytes of the stream; a line ends at a newline.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                endLine()
            } else if partial.count < lineLimit * 4 {
                // Bytes past the limit of a line that never ends are dropped: the tail stays bounded.
                partial.append(byte)
            }
        }
    }

    /// The kept lines, oldest first, with the unfinished last line if there is one.
    public var lines: [String] {
        var tail = self
        if !tail.partial.isEmpty { tail.endLine() }
        return tail.kept
    }

    private mutating func endLine() {
        let line = String(String(decoding: partial, as: UTF8.self).withoutEscapeSequences.prefix(lineLimit))
        partial.removeAll(keepingCapacity: true)
        guard !line.allSatisfy(\.isWhitespace) else { return }
        kept.append(line)
        if kept.count > count { kept.removeFirst(kept.count - count) }
    }
}

extension String {
    /// The text with terminal escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL or ESC \`, and two-character
    /// `ESC x`) removed whole, then other control characters as `sanitized` does: a plugin's colours and cursor
    /// moves leave no stray `[31m` behind.
    public var withoutEscapeSequences: String {
        guard contains("\u{1B}") || contains("\u{9B}") else { return sanitized }
        var output = String.UnicodeScalarView()
        var scalars = unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\u{1B}":
                guard let next = scalars.next() else { break }
                if next == "[" {
                    skipControlSequence(&scalars)
                } else if next == "]" || next == "P" || next == "_" || next == "^" {
                    skipString(&scalars)
                }
            case "\u{9B}": skipControlSequence(&scalars)
            default: output.append(scalar)
            }
        }
        return String(output).sanitized
    }
}

/// Skips the parameters of a control sequence up to and including its final character (`@` to `~`).
private func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
    while let scalar = scalars.next(), !(0x40...0x7E).contains(scalar.value) {}
}

/// Skips an operating-system command or other string up to BEL or `ESC \`.
private func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
    while let scalar = scalars.next() {
        if scalar == "\u{07}" { return }
        if scalar == "\u{1B}" {
            _ = scalars.next()
            return
        }
    }
}
