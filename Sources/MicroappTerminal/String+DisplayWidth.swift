// Column arithmetic for monospaced output: how wide text is on a terminal, and how to cut, pad and wrap it
// without splitting a character. Feature text is untrusted: `sanitized` (MicroappCore) replaces its control
// characters so a screen can never move the cursor or change colours by itself.
import MicroappCore

extension Character {
    /// Columns this character takes on a terminal: 0 for combining marks, 2 for wide (CJK, emoji), else 1.
    var displayWidth: Int {
        guard let first = unicodeScalars.first else { return 0 }
        if unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if unicodeScalars.count > 1, unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        return Self.isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            true
        default: false
        }
    }
}

extension String {
    /// Columns the string takes on a terminal.
    var displayWidth: Int { reduce(0) { $0 + $1.displayWidth } }

    /// Cut to at most `width` columns, ending in `…` when something was cut.
    func truncated(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        guard displayWidth > width else { return self }
        var result = ""
        var used = 0
        for character in self {
            let columns = character.displayWidth
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// The last columns of the string that fit in `width`, starting with `…` when something was cut.
    func truncatedFromStart(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        guard displayWidth > width else { return self }
        var result = ""
        var used = 0
        for character in reversed() {
            let columns = character.displayWidth
            if used + columns > width - 1 { break }
            result.insert(character, at: result.startIndex)
            used += columns
        }
        return "…" + result
    }

    /// Padded with spaces (or cut) to exactly `width` columns.
    func padded(toWidth width: Int) -> String {
        let cut = truncated(toWidth: width)
        return cut + String(repeating: " ", count: max(0, width - cut.displayWidth))
    }

    /// Word-wrapped into lines of at most `width` columns; newlines in the text start new lines, words longer
    /// than a line are cut into pieces.
    func wrapped(toWidth width: Int) -> [String] {
        let width = Swift.max(width, 1)
        var lines: [String] = []
        for paragraph in split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in String(paragraph).sanitized.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                while word.displayWidth > width {
                    if !line.isEmpty {
                        lines.append(line)
                        line = ""
                    }
                    let head = word.prefixFitting(width)
                    lines.append(head)
                    word.removeFirst(head.count)
                }
                if line.isEmpty {
                    line = word
                } else if line.displayWidth + 1 + word.displayWidth <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = word
                }
            }
            lines.append(line)
        }
        return lines
    }

    private func prefixFitting(_ width: Int) -> String {
        var result = ""
        var used = 0
        for character in self {
            if used + character.displayWidth > width { break }
            result.append(character)
            used += character.displayWidth
        }
        return result.isEmpty ? String(prefix(1)) : result
    }
}

/// Joins pieces with `separator`, starting a new line whenever the next piece would pass `width` columns.
func flowed(_ pieces: [String], separator: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for piece in pieces {
        if line.isEmpty {
            line = piece
        } else if line.displayWidth + separator.displayWidth + piece.displayWidth <= width {
            line += separator + piece
        } else {
            lines.append(line)
            line = piece
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
