extension String {
    /// The text without terminal escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL or ESC \`, and two-byte
    /// `ESC x`), then `sanitized`: what a child printed, fit for a log line.
    public var withoutEscapeSequences: String {
        guard contains("\u{1B}") else { return sanitized }
        var kept: [Unicode.Scalar] = []
        var scalars = unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                kept.append(scalar)
                continue
            }
            switch scalars.next() {
            case "[":
                while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
            case "]":
                var previous: Unicode.Scalar = " "
                while let next = scalars.next(), next != "\u{07}", !(previous == "\u{1B}" && next == "\\") {
                    previous = next
                }
            default: break
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: kept)
        return text.sanitized
    }
}
