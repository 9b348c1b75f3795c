/// Draws whole screens of lines on the terminal, rewriting only the rows that changed since the last draw.
@MainActor
final class TerminalCanvas {
    private var shown: [String] = []
    private var needsClear = true
    private let write: (String) -> Void

    /// Draws with `write` (stdout by default).
    init(write: @escaping (String) -> Void = StandardStreams.write) {
        self.write = write
    }

    /// Forgets what is on the terminal: the next draw clears it and writes every row (after a resize).
    func invalidate() {
        shown = []
        needsClear = true
    }

    /// Shows `lines` (already rendered, one per row from the top), in one write.
    func draw(_ lines: [String]) {
        var output = needsClear ? "\u{1B}[2J" : ""
        needsClear = false
        for (row, line) in lines.enumerated() where row >= shown.count || shown[row] != line {
            output += "\u{1B}[\(row + 1);1H\(line)\u{1B}[0m\u{1B}[K"
        }
        if lines.count < shown.count { output += "\u{1B}[\(lines.count + 1);1H\u{1B}[J" }
        shown = lines
        if !output.isEmpty { write(output) }
    }
}
