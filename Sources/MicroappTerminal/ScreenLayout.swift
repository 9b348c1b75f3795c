import MicroappCore
import MicroappSDK

/// Lays a frame out for a terminal of `width`×`height`: header, rule, title, the content (or the loading
/// spinner, or the error panel) scrolled to keep the focused element visible, an alert boxed over it, a rule,
/// and the footer with the key help (or a notice) and the route. Every line fits in `width - 1` columns.
struct ScreenLayout {
    var width: Int
    var height: Int
    var color: Bool
    /// Which spinner character to show while loading.
    var spinnerFrame: Int = 0
    /// A notice shown in place of the key help.
    var notice: Notice?
    /// Show the top of the content when the focused element fits on the first page (after focus moved);
    /// false keeps a scroll position the person chose.
    var preferTop = true
    /// A failed build of a watched feature: its first compiler errors are boxed over the screen.
    var buildFailure: Notice?
    /// The feature on screen has a previous version: the key help offers ctrl-r.
    var canRollBack = false
    /// The address bar's text while it is open: it takes the footer's place.
    var addressBar: String?
    /// The log of printed lines while it is open: it takes the screen's place (title and content).
    var log: FeatureLog?
    /// Lines were printed: the key help offers ctrl-l.
    var hasLog = false

    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static let keyHelp = "tab/↑↓ move · enter select · esc back · ctrl-c quit"
    static let fieldKeyHelp = "tab/↑↓ move · type to edit · esc back · ctrl-c quit"

    /// The key help when the app shows tabs: the digits that pick them (alt-digits while a field has the keys).
    static func tabbedKeyHelp(tabCount: Int, isField: Bool) -> String {
        let keys = min(tabCount, 9) == 1 ? "1 tab" : "1-\(min(tabCount, 9)) tabs"
        return isField
            ? "↑↓ move · alt+\(keys) · esc back · ctrl-c quit"
            : "↑↓ move · enter select · \(keys) · esc back · ctrl-c quit"
    }

    /// The laid-out lines (exactly `height` of them) and the scroll offset to pass next time.
    func lines(for frame: Frame, focus: Focus, scrollOffset: Int) -> (lines: [StyledLine], scrollOffset: Int) {
        let columns = max(width - 1, 10)
        let screen = frame.screen
        let focusedID = focus.focusedID(in: screen)
        let rule = StyledLine(" " + String(repeating: "─", count: columns - 1), .dim)
        let header = headerLine(frame, columns: columns)
        let footer = footerLines(frame: frame, focusedID: focusedID, columns: columns)
        let tabBar =
            frame.tabs.isEmpty ? [] : [tabBarLine(frame.tabs, isField: isField(focusedID, in: screen), columns)]

        var content = ContentLayout(width: columns, focusedID: focusedID, focus: focus, color: color)
        content.untrustedMark = frame.untrustedMark
        let bodyHeight = max(height - 3 - footer.count - tabBar.count, 1)
        let areaHeight = max(bodyHeight - 2, 1)
        var body: [BodyLine]
        switch screen.state {
        case .view, .alert: body = content.lines(for: screen.content)
        case .loading(let message):
            let spinner = Self.spinner[spinnerFrame % Self.spinner.count]
            body = [BodyLine(line: StyledLine("  \(spinner) \(message.sanitized)"))]
        case .error(let panel):
            // A long title (the reason a route cannot open) wraps under itself rather than being cut.
            body = panel.title.sanitized.wrapped(toWidth: columns - 4).enumerated().map { index, line in
                BodyLine(line: StyledLine("  ") + StyledLine((index == 0 ? "✗ " : "  ") + line, .error))
            }
            body += panel.message.wrapped(toWidth: columns - 2).map { BodyLine(line: StyledLine("  " + $0)) }
            body.append(.blank)
            body += content.lines(for: [.stack(Stack(.horizontal, panel.actions.map(Element.button)))])
        }

        let offset = Self.scrollOffset(
            previous: scrollOffset, lines: body, focusKey: focusKey(screen: screen, focusedID: focusedID, focus: focus),
            areaHeight: areaHeight, preferTop: preferTop)
        var visible = Array(body.dropFirst(offset).prefix(areaHeight)).map(\.line)
        visible += Array(repeating: StyledLine(), count: areaHeight - visible.count)
        if case .alert(let alert) = screen.state {
            overlay(box: alertBox(alert, content: content, columns: columns), on: &visible, columns: columns)
        }
        if let buildFailure {
            overlay(box: buildBox(buildFailure, columns: columns), on: &visible, columns: columns)
        }

        var more = ""
        if offset > 0 { more += "↑" }
        if offset + areaHeight < body.count { more += "↓" }
        let titleText = " " + screen.title.sanitized
        var title =
            more.isEmpty
            ? StyledLine(" " + titleText, .bold)
            : StyledLine(spread(left: " " + titleText, right: more + "more", width: columns), .bold)

        if let log {
            // The log takes the screen's place, so nothing is written over the app's screen.
            title = StyledLine("  Log · what isolated features printed, newest last", .bold)
            visible = logLines(log, columns: columns, rows: areaHeight)
        }
        var lines = [header] + tabBar + [rule, title, StyledLine()] + visible + [rule] + footer
        if lines.count > height {
            lines = Array(lines.prefix(max(height - footer.count, 0))) + footer.suffix(max(height, 0))
        }
        return (lines.map { $0.truncated(toWidth: columns) }, offset)
    }

    /// The header in bold; on an untrusted feature's screen the host's mark in its own style, which nothing a feature
    /// sends can draw.
    private func headerLine(_ frame: Frame, columns: Int) -> StyledLine {
        let text = frame.headerLine(width: columns, indent: " ")
        let prefix = " \(frame.appName) · "
        guard let mark = frame.untrustedMark, text.hasPrefix(prefix) else { return StyledLine(text, .bold) }
        let rest = text.dropFirst(prefix.count)
        // The mark runs to the gap before the status (it may have been cut to fit).
        let end = rest.range(of: "   ")?.lowerBound ?? rest.endIndex
        let shown = String(rest[..<end])
        guard mark.hasPrefix(shown.hasSuffix("…") ? String(shown.dropLast()) : shown) else {
            return StyledLine(text, .bold)
        }
        return StyledLine([Span(prefix, .bold), Span(shown, .untrusted), Span(String(rest[end...]), .bold)])
    }

    /// The key of the focused line: the focused row of a focused list, else the focused element's id.
    private func focusKey(screen: Screen, focusedID: String?, focus: Focus) -> String? {
        guard let focusedID else { return nil }
        if case .list(let list)? = screen.element(id: focusedID), !list.items.isEmpty {
            return "\(list.id)#\(focus.row(in: list))"
        }
        return focusedID
    }

    /// The first line to show so the focused lines are visible, moving as little as possible from `previous`,
    /// and showing the top when `preferTop` and the focus fits on the first page.
    static func scrollOffset(
        previous: Int, lines: [BodyLine], focusKey: String?, areaHeight: Int, preferTop: Bool = true
    ) -> Int {
        let maximum = max(0, lines.count - areaHeight)
        var offset = min(max(previous, 0), maximum)
        guard let focusKey, let first = lines.firstIndex(where: { $0.focusKeys.contains(focusKey) }),
            let last = lines.lastIndex(where: { $0.focusKeys.contains(focusKey) })
        else { return offset }
        if preferTop && last < areaHeight { return 0 }
        if first < offset { offset = first }
        if last >= offset + areaHeight { offset = min(last - areaHeight + 1, first) }
        return min(max(offset, 0), maximum)
    }

    private func alertBox(_ alert: Alert, content: ContentLayout, columns: Int) -> [StyledLine] {
        let innerMaximum = max(columns - 10, 10)
        var inner = [StyledLine(alert.title.sanitized, .bold)]
        inner += alert.message.wrapped(toWidth: innerMaximum).map { StyledLine($0) }
        inner.append(StyledLine())
        let actions = ContentLayout(
            width: innerMaximum + 2, focusedID: content.focusedID, focus: content.focus, color: color)
        inner += actions.lines(for: .stack(Stack(.horizontal, alert.actions.map(Element.button)))).map {
            StyledLine(Array($0.line.spans.drop { $0.text == "  " }))
        }
        let innerWidth = min(innerMaximum, inner.map(\.displayWidth).max() ?? 0)
        let edge = String(repeating: "─", count: innerWidth + 2)
        return [StyledLine("┌\(edge)┐")]
            + inner.map {
                StyledLine("│ ") + $0.truncated(toWidth: innerWidth).padded(toWidth: innerWidth) + StyledLine(" │")
            }
            + [StyledLine("└\(edge)┘")]
    }

    /// The newest lines of `log` that fit in `rows`, each after its feature's id, padded to `rows` lines.
    private func logLines(_ log: FeatureLog, columns: Int, rows: Int) -> [StyledLine] {
        var lines: [StyledLine]
        if log.entries.isEmpty {
            lines = [StyledLine("  Nothing printed yet: lines isolated features print appear here.", .dim)]
        } else {
            let width = min(log.entries.map { $0.feature.sanitized.displayWidth }.max() ?? 0, 16)
            lines = log.entries.suffix(rows).map { entry in
                let name = entry.feature.sanitized.truncated(toWidth: width)
                let padding = String(repeating: " ", count: max(0, width - name.displayWidth))
                return StyledLine("  " + name + padding + " │ ", .dim) + StyledLine(entry.line.sanitized)
            }
        }
        return lines + Array(repeating: StyledLine(), count: max(0, rows - lines.count))
    }

    /// The first compiler errors of a failed build in a box, over the still-working screen.
    private func buildBox(_ failure: Notice, columns: Int) -> [StyledLine] {
        let innerWidth = max(10, columns - 6)
        var inner = [StyledLine("✗ " + failure.message.components(separatedBy: ":").first!.sanitized, .error)]
        for line in failure.detail ?? [failure.message] {
            inner += line.sanitized.wrapped(toWidth: innerWidth).prefix(3).map { StyledLine($0) }
        }
        // What runs meanwhile and what to do differ between a save under --watch and a build at start: the notice
        // says which.
        let fix = failure.fix ?? "fix the errors and save again; the running version stays"
        inner +=
            [StyledLine()]
            + "\(fix) · esc hides this".sanitized.wrapped(toWidth: innerWidth).map { StyledLine($0, .dim) }
        let edge = String(repeating: "─", count: innerWidth + 2)
        return [StyledLine("┌\(edge)┐", .error)]
            + inner.map {
                StyledLine("│ ", .error) + $0.truncated(toWidth: innerWidth).padded(toWidth: innerWidth)
                    + StyledLine(" │", .error)
            }
            + [StyledLine("└\(edge)┘", .error)]
    }

    /// Puts `box` in the middle of `lines`, centred horizontally; a box taller than the area loses its top
    /// lines' middle so the actions at its bottom stay visible.
    private func overlay(box: [StyledLine], on lines: inout [StyledLine], columns: Int) {
        var box = box
        if box.count > lines.count {
            box = Array(box.prefix(1)) + Array(box.suffix(lines.count - 1))
        }
        let top = (lines.count - box.count) / 2
        let left = String(repeating: " ", count: max(0, (columns - (box.first?.displayWidth ?? 0)) / 2))
        for (index, line) in box.enumerated() where lines.indices.contains(top + index) {
            lines[top + index] = StyledLine(left) + line
        }
    }

    /// ` [1 Characters]   2 Search   3 Settings` with the address bar's key on the right; the selected tab bold, an
    /// untrusted feature's followed by the host's `untrusted` mark in its own style, which no title can draw.
    private func tabBarLine(_ tabs: [Frame.Tab], isField: Bool, _ columns: Int) -> StyledLine {
        var line = StyledLine(" ")
        for (index, tab) in tabs.enumerated() {
            let key = index < 9 ? "\(index + 1) " : ""
            let label = key + tab.title.sanitized
            line = line + StyledLine(" ") + (tab.selected ? StyledLine("[\(label)]", .bold) : StyledLine(" \(label) "))
            if tab.untrustedMark != nil { line = line + StyledLine(" untrusted ", .untrusted) }
            line = line + StyledLine(" ")
        }
        let hint = (isField ? "ctrl-o" : ":") + " open URL "
        let room = max(0, columns - hint.displayWidth - 3)
        let tabsShown = line.truncated(toWidth: room)
        let gap = max(3, columns - tabsShown.displayWidth - hint.displayWidth)
        return tabsShown + StyledLine(String(repeating: " ", count: gap)) + StyledLine(hint, .dim)
    }

    private func isField(_ focusedID: String?, in screen: Screen) -> Bool {
        if case .field? = focusedID.flatMap(screen.element(id:)) { true } else { false }
    }

    /// True when `screen` is an error panel that already says `notice`'s message: the footer does not repeat it.
    static func screen(_ screen: Screen, alreadySays notice: Notice) -> Bool {
        guard notice.level == .error, case .error(let panel) = screen.state else { return false }
        return panel.title.contains(notice.message) || panel.message.contains(notice.message)
    }

    /// The key help and the route: when both do not fit, where the feature runs goes first, then the parts a person
    /// needs least (moving, selecting, then the log), so quitting, going back and rolling back stay in view.
    private func keyHelpFooter(frame: Frame, focusedID: String?, columns: Int, route: String, place: String)
        -> StyledLine
    {
        let isField = isField(focusedID, in: frame.screen)
        let help =
            frame.tabs.isEmpty
            ? (isField ? Self.fieldKeyHelp : Self.keyHelp)
            : Self.tabbedKeyHelp(tabCount: frame.tabs.count, isField: isField)
        var parts =
            (hasLog ? ["ctrl-l log"] : []) + help.components(separatedBy: " · ")
            + (canRollBack ? ["ctrl-r roll back"] : [])
        var route = route
        let fits = { (parts: [String], route: String) in
            (" " + parts.joined(separator: " · ")).displayWidth + 3 + route.displayWidth <= columns
        }
        if !fits(parts, route) { route = String(route.dropFirst(place.count)) }
        let leastNeededFirst = ["enter select", "tab/↑↓ move", "↑↓ move", "type to edit", "ctrl-l log"]
        for dropped in leastNeededFirst where !fits(parts, route) { parts.removeAll { $0 == dropped } }
        let left = Span(" " + parts.joined(separator: " · "), .dim)
        let room = max(0, columns - route.displayWidth - 3)
        let shown = Span(left.text.truncated(toWidth: room), left.style)
        let gap = max(3, columns - shown.text.displayWidth - route.displayWidth)
        return StyledLine([shown, Span(String(repeating: " ", count: gap)), Span(route, .dim)])
    }

    /// The footer: one line, or a notice too long for one wrapped over up to three.
    private func footerLines(frame: Frame, focusedID: String?, columns: Int) -> [StyledLine] {
        // Where the feature on screen runs, before its route: `in-process · characters://list`.
        let place = frame.isolation.map { $0 == .process ? "isolated · " : "in-process · " } ?? ""
        let route = place + frame.route.sanitized + " "
        let left: Span
        if let addressBar {
            let prompt = " open URL: "
            let help = " enter open · esc cancel "
            let room = max(1, columns - prompt.displayWidth - help.displayWidth - 4)
            let shown = prompt + addressBar.sanitized.truncatedFromStart(toWidth: room)
            let caret = color ? Span(" ", .focused) : Span("_")
            let gap = max(3, columns - shown.displayWidth - 1 - help.displayWidth)
            return [StyledLine([Span(shown), caret, Span(String(repeating: " ", count: gap)), Span(help, .dim)])]
        } else if let log {
            let features = Set(log.entries.map(\.feature)).count
            left = Span(" ctrl-l/esc close log · \(log.entries.count) line(s) of \(features) feature(s)", .dim)
        } else if let notice, !Self.screen(frame.screen, alreadySays: notice) {
            let fix = notice.fix.map { " — \($0.sanitized)" } ?? ""
            switch notice.level {
            case .info where notice.isProgress: left = Span(" ~ " + notice.message.sanitized + fix, .success)
            case .info where notice.isSuccess: left = Span(" ✓ " + notice.message.sanitized + fix, .success)
            case .info: left = Span(" · " + notice.message.sanitized + fix)
            case .error: left = Span(" ! " + notice.message.sanitized + fix, .error)
            }
        } else {
            return [keyHelpFooter(frame: frame, focusedID: focusedID, columns: columns, route: route, place: place)]
        }
        let room = max(0, columns - route.displayWidth - 3)
        guard left.text.displayWidth <= room else {
            // A notice too long to stand beside the route is wrapped over up to three lines, the route left out
            // while it shows: never cut where the part that matters may be (the outcome at the end of a swap's).
            let mark = String(left.text.prefix(3))
            return String(left.text.dropFirst(3)).wrapped(toWidth: columns - 4).prefix(3).enumerated().map {
                StyledLine(($0.offset == 0 ? mark : "   ") + $0.element, left.style)
            }
        }
        let shown = Span(left.text, left.style)
        let gap = max(3, columns - shown.text.displayWidth - route.displayWidth)
        return [StyledLine([shown, Span(String(repeating: " ", count: gap)), Span(route, .dim)])]
    }
}

extension Notice {
    /// Codes of news that something went well (a swap, a build, an update): the footer ticks them. Other information
    /// (a redirect, nothing to go back to, a stub) is not a success and gets a plain mark.
    static let successCodes = Set(
        [Problem.Code.swapped, .rolledBack, .built, .updated, .updateChecked, .canaryPassed, .featureRestarted].map(
            \.rawValue))

    /// True for news that something went well (see `successCodes`).
    var isSuccess: Bool { level == .info && Self.successCodes.contains(code) }
}
