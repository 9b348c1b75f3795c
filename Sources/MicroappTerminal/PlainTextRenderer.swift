import MicroappCore
import MicroappSDK

/// Draws a frame as plain text: no colours, no cursor movement, the same output for the same frame.
/// Used by `--ui text`, by `microapp preview` and by golden tests.
///
/// ```
/// Microapps · Auth                                                signed out   v1
/// ────────────────────────────────────────────────────────────────────────────────
/// Sign in
///
/// Email: rick@example.com (email)
/// Password: •••••• (password)
///
/// [ Sign in ] (sign-in)   [ Cancel ] (cancel)
/// ────────────────────────────────────────────────────────────────────────────────
/// auth://sign-in
/// ```
///
/// A signed-in app's frame has its tabs under the header: `Tabs: [Characters] (tab.characters) · Search (tab.search)`
/// (an untrusted feature's tab followed by the host's mark).
public enum PlainTextRenderer {
    /// The frame (and the notices after it) as lines joined by `\n`, without a trailing newline.
    public static func render(_ frame: Frame, notices: [Notice] = [], width: Int = 80) -> String {
        let width = max(width, 20)
        let rule = String(repeating: "─", count: width)
        var lines = [frame.headerLine(width: width)] + tabsLine(frame.tabs, width: width)
        lines += [rule, frame.screen.title.sanitized, ""]
        lines += body(of: frame.screen, width: width, untrustedMark: frame.untrustedMark)
        while lines.last == "" { lines.removeLast() }
        lines += [rule, frame.route.sanitized]
        lines += notices.map(render(_:))
        return lines.joined(separator: "\n")
    }

    /// `Tabs: [Characters] (tab.characters) · Search (tab.search)`, the selected tab in brackets, each with the
    /// id `tap` takes, an untrusted feature's with the host's mark (`Lurker (tab.lurker) [untrusted · lurker from
    /// /plugins]`); no line when there are no tabs.
    static func tabsLine(_ tabs: [Frame.Tab], width: Int) -> [String] {
        guard !tabs.isEmpty else { return [] }
        let parts = tabs.enumerated().map { index, tab in
            let title = tab.title.sanitized
            let mark = tab.untrustedMark.map { " [\($0.sanitized)]" } ?? ""
            return (index == 0 ? "Tabs: " : "") + "\(tab.selected ? "[\(title)]" : title) (\(tab.id.sanitized))\(mark)"
        }
        // A line that wraps goes on with the separator it broke at, so the next one reads as the same list.
        return flowed(parts, separator: " · ", width: width - 2).enumerated().map {
            $0.offset == 0 ? $0.element : "· " + $0.element
        }
    }

    /// One notice as a log line: `! message (fix)` for problems, `· message` for information (`· message (fix)`
    /// when it has a fix, e.g. a swap of a feature that keeps no state).
    public static func render(_ notice: Notice) -> String {
        let mark = notice.level == .info ? "·" : "!"
        guard let fix = notice.fix, !fix.isEmpty else { return "\(mark) \(notice.message.sanitized)" }
        return "\(mark) \(notice.message.sanitized) (\(fix.sanitized))"
    }

    /// The screen's body; with `untrustedMark`, each secure field carries it (`[untrusted · lurker from /plugins]`).
    static func body(of screen: Screen, width: Int, untrustedMark: String? = nil) -> [String] {
        switch screen.state {
        case .view:
            return blocks(screen.content, width: width, untrustedMark: untrustedMark)
        case .loading(let message):
            return ["… \(message.sanitized)"]
        case .alert(let alert):
            let box = boxed(
                [alert.title.sanitized] + alert.message.wrapped(toWidth: width - 4) + [""]
                    + flowed(alert.actions.map(button), separator: "   ", width: width - 4),
                width: width)
            return blocks(screen.content, width: width, untrustedMark: untrustedMark) + [""] + box
        case .error(let panel):
            return ["✗ \(panel.title.sanitized)"] + panel.message.wrapped(toWidth: width) + [""]
                + flowed(panel.actions.map(button), separator: "   ", width: width)
        }
    }

    /// Elements top to bottom, with a blank line where the kind of element changes.
    static func blocks(_ elements: [Element], width: Int, untrustedMark: String? = nil) -> [String] {
        var lines: [String] = []
        var previous: ElementKind?
        for element in elements {
            let kind = ElementKind(element)
            if let previous, previous != kind || kind == .list || kind == .stack { lines.append("") }
            lines += self.lines(for: element, width: width, untrustedMark: untrustedMark)
            previous = kind
        }
        return lines
    }

    static func lines(for element: Element, width: Int, untrustedMark: String? = nil) -> [String] {
        switch element {
        case .text(let text):
            let prefix = text.style == .error ? "! " : ""
            return (prefix + text.value).wrapped(toWidth: width)
        case .button(let value):
            return [button(value)]
        case .field(let field):
            let mark = field.isSecure ? untrustedMark.map { "[\($0)]" } ?? "" : ""
            let parts = ["\(field.label.sanitized):", shown(field), "(\(field.id.sanitized))", mark]
            var lines = [parts.filter { !$0.isEmpty }.joined(separator: " ")]
            if let error = field.error { lines += ("! " + error).wrapped(toWidth: width - 2).map { "  " + $0 } }
            return lines
        case .list(let list):
            let rows = list.alignedRows(width: width - 5).enumerated().map { index, row in
                let marker = index == list.selectedIndex ? ">" : " "
                return "\(marker) \(String(index).padded(toWidth: String(list.items.count - 1).count))  \(row)"
            }
            var lines = ["(\(list.id.sanitized))"] + (rows.isEmpty ? ["  (no rows)"] : rows)
            if let footer = list.footer { lines.append("  " + footer.sanitized) }
            return lines
        case .stack(let stack) where stack.axis == .horizontal:
            let parts = stack.children.map { lines(for: $0, width: width, untrustedMark: untrustedMark) }
            guard parts.allSatisfy({ $0.count == 1 }) else { return parts.flatMap { $0 } }
            return flowed(parts.map { $0[0] }, separator: "   ", width: width)
        case .stack(let stack):
            return blocks(stack.children, width: width, untrustedMark: untrustedMark)
        }
    }

    static func button(_ button: Button) -> String {
        let state = button.isEnabled ? "" : ", disabled"
        return "[ \(button.title.sanitized) ] (\(button.id.sanitized)\(state))"
    }

    /// The field's text, dots for secure text, or its placeholder in ‹›.
    static func shown(_ field: TextField) -> String {
        if field.text.isEmpty { return field.placeholder.isEmpty ? "" : "‹\(field.placeholder.sanitized)›" }
        return field.shownText.sanitized
    }

    static func boxed(_ lines: [String], width: Int) -> [String] {
        let inner = min(width - 4, lines.map(\.displayWidth).max() ?? 0)
        let edge = String(repeating: "─", count: inner + 2)
        return ["┌\(edge)┐"] + lines.map { "│ \($0.padded(toWidth: inner)) │" } + ["└\(edge)┘"]
    }
}

/// What kind of element a block is, to decide where blank lines go.
enum ElementKind: Equatable {
    case text, button, field, list, stack

    init(_ element: Element) {
        switch element {
        case .text: self = .text
        case .button: self = .button
        case .field: self = .field
        case .list: self = .list
        case .stack: self = .stack
        }
    }
}
