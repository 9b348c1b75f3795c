import MicroappCore
import MicroappSDK

/// Which element has the keyboard in the terminal UI, which row each list is on, and what a key does there.
/// Focus is kept by element id, so it survives redraws, loading states and alerts while the element exists.
struct Focus: Equatable {
    /// The element focused last, in the content or in an alert or error panel.
    var id: String?
    /// The content element focused last, to come back to when an alert or error panel goes away.
    var contentID: String?
    /// The focused row of each list, by list id.
    var rows: [String: Int] = [:]

    /// What a key led to.
    enum Outcome: Equatable {
        /// Nothing to do.
        case ignored
        /// Focus moved: draw again.
        case moved
        /// Send this event to the driver.
        case send(Event)
        /// The person wants to quit.
        case quit
    }

    /// The elements focus moves over: the actions of an alert or error panel while one is shown, nothing while
    /// loading, else the content's fields, lists and enabled buttons.
    static func targets(in screen: Screen) -> [Element] {
        screen.reachableElements.filter {
            if case .button(let button) = $0 { button.isEnabled } else { true }
        }
    }

    /// The focused element's id on `screen`: the last focused one if still there, else the first target.
    func focusedID(in screen: Screen) -> String? {
        let ids = Self.targets(in: screen).compactMap(\.id)
        if let id, ids.contains(id) { return id }
        if case .view = screen.state, let contentID, ids.contains(contentID) { return contentID }
        return ids.first
    }

    /// The focused row of list `list`, kept inside its rows (its `selectedIndex` until a key moved it).
    func row(in list: ListView) -> Int {
        let row = rows[list.id] ?? list.selectedIndex ?? 0
        return max(0, min(row, list.items.count - 1))
    }

    /// Handles one key on `screen` (the driver's current screen).
    mutating func handle(_ key: Key, on screen: Screen) -> Outcome {
        let targets = Self.targets(in: screen)
        let focusedID = focusedID(in: screen)
        let focused = targets.first { $0.id == focusedID }
        switch (key, focused) {
        case (.interrupt, _), (.endOfInput, _): return .quit
        case (.escape, _): return .send(.back)
        case (.tab, _): return move(by: 1, in: targets, from: focusedID, wrapping: true, screen: screen)
        case (.shiftTab, _): return move(by: -1, in: targets, from: focusedID, wrapping: true, screen: screen)
        case (.down, .list(let list)) where row(in: list) < list.items.count - 1:
            return setRow(row(in: list) + 1, of: list)
        case (.up, .list(let list)) where row(in: list) > 0: return setRow(row(in: list) - 1, of: list)
        case (.pageDown, .list(let list)): return setRow(row(in: list) + 10, of: list)
        case (.pageUp, .list(let list)): return setRow(row(in: list) - 10, of: list)
        case (.home, .list(let list)): return setRow(0, of: list)
        case (.end, .list(let list)): return setRow(list.items.count - 1, of: list)
        case (.down, _): return move(by: 1, in: targets, from: focusedID, wrapping: false, screen: screen)
        case (.up, _): return move(by: -1, in: targets, from: focusedID, wrapping: false, screen: screen)
        case (.right, .field), (.left, .field): return .ignored
        case (.right, _): return move(by: 1, in: targets, from: focusedID, wrapping: false, screen: screen)
        case (.left, _): return move(by: -1, in: targets, from: focusedID, wrapping: false, screen: screen)
        case (.enter, .button(let button)): return .send(.action(.tap(id: button.id)))
        case (.enter, .list(let list)) where !list.items.isEmpty:
            return .send(.action(.select(id: list.id, index: row(in: list))))
        case (.enter, .field):
            if let submit = Self.submitButton(after: focusedID, in: targets) { return .send(.action(.tap(id: submit))) }
            return move(by: 1, in: targets, from: focusedID, wrapping: false, screen: screen)
        case (.backspace, .field(let field)) where !field.text.isEmpty:
            return .send(.action(.input(id: field.id, text: String(field.text.dropLast()))))
        case (.character(let character), .field(let field)):
            return .send(.action(.input(id: field.id, text: field.text + String(character))))
        case (.character("q"), _): return .quit
        default: return .ignored
        }
    }

    /// The button that submits the form whose last field is `fieldID`: the target right after it, when it is a
    /// button and no field follows. Enter in any other field moves on (a list after a search field is not a form).
    static func submitButton(after fieldID: String?, in targets: [Element]) -> String? {
        guard let index = targets.firstIndex(where: { $0.id == fieldID }), index + 1 < targets.count,
            case .button(let button) = targets[index + 1],
            !targets[(index + 1)...].contains(where: { if case .field = $0 { true } else { false } })
        else { return nil }
        return button.id
    }

    private mutating func move(
        by step: Int, in targets: [Element], from focusedID: String?, wrapping: Bool, screen: Screen
    ) -> Outcome {
        let ids = targets.compactMap(\.id)
        guard !ids.isEmpty else { return .ignored }
        let current = focusedID.flatMap { ids.firstIndex(of: $0) }
        var next = (current ?? (step > 0 ? -1 : ids.count)) + step
        if wrapping {
            next = (next % ids.count + ids.count) % ids.count
        } else if !ids.indices.contains(next) {
            return .ignored
        }
        focus(ids[next], on: screen)
        return .moved
    }

    /// Focuses element `id`, remembering it as the content focus when the screen shows its content.
    mutating func focus(_ id: String, on screen: Screen) {
        self.id = id
        if case .view = screen.state { contentID = id }
    }

    private mutating func setRow(_ row: Int, of list: ListView) -> Outcome {
        let clamped = max(0, min(row, list.items.count - 1))
        guard clamped != self.row(in: list) else { return .ignored }
        rows[list.id] = clamped
        return .moved
    }
}
