import MicroappSDK

/// A line of the screen's body and the focus targets it shows (`id`, or `id#row` for a list row), so the
/// layout can scroll the focused element into view.
struct BodyLine: Equatable {
    var line: StyledLine
    var focusKeys: [String] = []

    static let blank = BodyLine(line: StyledLine())
}

/// Lays out a screen's elements as terminal lines `width` columns wide, with the focused element highlighted:
/// reverse video, or with NO_COLOR markers (`> ` before fields and rows, `[>Sign in<]` for buttons).
struct ContentLayout {
    let width: Int
    let focusedID: String?
    let focus: Focus
    let color: Bool
    let indent = "  "
    /// Columns for field labels, so the boxes of fields one under another line up.
    var labelWidth = 0
    /// On an untrusted feature's screen, the host's mark, shown under each secure field.
    var untrustedMark: String?

    /// Elements top to bottom, with a blank line where the kind of element changes.
    func lines(for elements: [Element]) -> [BodyLine] {
        var layout = self
        layout.labelWidth =
            elements.compactMap {
                if case .field(let field) = $0 { "\(field.label.sanitized): ".displayWidth } else { nil }
            }.max() ?? 0
        layout.labelWidth = min(layout.labelWidth, width / 3)
        var lines: [BodyLine] = []
        var previous: ElementKind?
        for element in elements {
            let kind = ElementKind(element)
            if let previous, previous != kind || kind == .list || kind == .stack { lines.append(.blank) }
            lines += layout.lines(for: element)
            previous = kind
        }
        return lines
    }

    func lines(for element: Element) -> [BodyLine] {
        let room = width - indent.count
        switch element {
        case .text(let text):
            let style: SpanStyle =
                switch text.style {
                case .body: .plain
                case .headline: .bold
                case .caption: .dim
                case .error: .error
                }
            let value = text.style == .error ? "! " + text.value : text.value
            return value.wrapped(toWidth: room).map { BodyLine(line: StyledLine(indent) + StyledLine($0, style)) }
        case .button(let button):
            return [BodyLine(line: StyledLine(indent) + self.button(button), focusKeys: [button.id])]
        case .field(let field):
            return fieldLines(field)
        case .list(let list):
            return listLines(list)
        case .stack(let stack) where stack.axis == .horizontal:
            let parts = stack.children.map(lines(for:))
            guard parts.allSatisfy({ $0.count == 1 }) else { return parts.flatMap { $0 } }
            return joined(parts.map { $0[0] })
        case .stack(let stack):
            return lines(for: stack.children)
        }
    }

    /// `[ Title ]`, reverse video when focused (or `[>Title<]` without colour), dimmed when disabled.
    func button(_ button: Button) -> StyledLine {
        let title = button.title.sanitized
        if button.id == focusedID && button.isEnabled {
            return color ? StyledLine("[ \(title) ]", .focused) : StyledLine("[>\(title)<]")
        }
        if !button.isEnabled { return StyledLine("[ \(title) ]" + (color ? "" : " (disabled)"), .dim) }
        return StyledLine("[ \(title) ]")
    }

    private func fieldLines(_ field: TextField) -> [BodyLine] {
        let isFocused = field.id == focusedID
        var label = "\(field.label.sanitized): "
        if label.displayWidth < labelWidth { label = label.padded(toWidth: labelWidth) }
        let boxWidth = max(12, min(40, width - indent.count - label.displayWidth - 2))
        let shown = field.shownText.sanitized
        var value: StyledLine
        if isFocused {
            let text = (shown + "_").truncatedFromStart(toWidth: boxWidth).padded(toWidth: boxWidth)
            value = color ? StyledLine(text, .focused) : StyledLine(text)
        } else if shown.isEmpty {
            value = StyledLine(field.placeholder.sanitized.padded(toWidth: boxWidth), .dim)
        } else {
            value = StyledLine(shown.truncatedFromStart(toWidth: boxWidth).padded(toWidth: boxWidth))
        }
        let marker = isFocused && !color ? "> " : indent
        var lines = [
            BodyLine(
                line: StyledLine(marker + label) + StyledLine("[") + value + StyledLine("]"), focusKeys: [field.id])
        ]
        if let error = field.error {
            lines += ("! " + error).wrapped(toWidth: width - indent.count * 2).map {
                BodyLine(line: StyledLine(indent + indent) + StyledLine($0, .error), focusKeys: [field.id])
            }
        }
        if field.isSecure, let untrustedMark {
            // A password typed here goes to the feature named, not to the app.
            let mark = "⚠ \(untrustedMark) asks for this".truncated(toWidth: width - indent.count * 2)
            lines.append(
                BodyLine(line: StyledLine(indent + indent) + StyledLine(mark, .untrusted), focusKeys: [field.id]))
        }
        return lines
    }

    private func listLines(_ list: ListView) -> [BodyLine] {
        let isFocused = list.id == focusedID
        let focusedRow = focus.row(in: list)
        let rows = list.alignedRows(width: width - indent.count)
        let rowWidth = rows.map(\.displayWidth).max() ?? 0
        var lines = rows.enumerated().map { index, row in
            let key = "\(list.id)#\(index)"
            guard isFocused && index == focusedRow else {
                return BodyLine(line: StyledLine(indent + row), focusKeys: [list.id, key])
            }
            let line =
                color
                ? StyledLine(indent) + StyledLine(row.padded(toWidth: rowWidth), .focused) : StyledLine("> " + row)
            return BodyLine(line: line, focusKeys: [list.id, key])
        }
        if rows.isEmpty {
            let marker = isFocused && !color ? "> " : indent
            lines.append(BodyLine(line: StyledLine(marker + "(no rows)", isFocused && color ? .focused : .dim)))
            lines[0].focusKeys = [list.id]
        }
        if let footer = list.footer {
            lines.append(BodyLine(line: StyledLine(indent) + StyledLine(footer.sanitized, .dim)))
        }
        return lines
    }

    /// Single lines side by side, three spaces apart, wrapping where they would pass the width.
    private func joined(_ parts: [BodyLine]) -> [BodyLine] {
        var result: [BodyLine] = []
        var current: BodyLine?
        for part in parts {
            let piece = StyledLine(Array(part.line.spans.drop { $0.text.allSatisfy { $0 == " " } }))
            if var line = current, line.line.displayWidth + 3 + piece.displayWidth <= width {
                line.line = line.line + StyledLine("   ") + piece
                line.focusKeys += part.focusKeys
                current = line
            } else {
                if let current { result.append(current) }
                current = BodyLine(line: StyledLine(indent) + piece, focusKeys: part.focusKeys)
            }
        }
        if let current { result.append(current) }
        return result
    }
}
