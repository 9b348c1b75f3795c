// The one place terminal escape sequences are removed: from what a child printed (`withoutEscapeSequences`, one log
// line) and from a compiler's coloured output (`strippingEscapeSequences`, its lines kept).

extension String {
    /// The text without terminal escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL or ESC \`, and two-byte
    /// `ESC x`), then `sanitized`: what a child printed, fit for a log line.
    public var withoutEscapeSequences: String { strippingEscapeSequences.sanitized }

    /// The text without terminal escape sequences (as `withoutEscapeSequences`), every other character (newlines
    /// too) kept: a compiler's output written for a terminal, read line by line.
    public var strippingEscapeSequences: String {
        guard contains("\u{1B}") else { return self }
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
        return text
    }
}
