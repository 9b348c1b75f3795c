import MicroappSDK

extension FeatureHarness {
    /// The element with `id` a person can reach now: content in the view state, the alert's or error's
    /// actions over it, nothing while loading.
    public func element(_ id: String) -> Element? {
        let current = screen
        let reachable: [Element]
        switch current.state {
        case .view: reachable = current.content.flatMap(Self.interactive)
        case .loading: reachable = []
        case .alert(let alert): reachable = alert.actions.map(Element.button)
        case .error(let panel): reachable = panel.actions.map(Element.button)
        }
        return reachable.first { $0.id == id }
    }

    /// Taps the enabled button `id`; throws when the screen offers no such button.
    public func tap(_ id: String) throws {
        guard case .button(let button) = try reachable(id, kind: "button") else {
            throw HarnessError("'\(id)' is not a button", screen: screen)
        }
        guard button.isEnabled else { throw HarnessError("button '\(id)' is disabled", screen: screen) }
        send(.tap(id: id))
    }

    /// Replaces the text of field `id` with `text`; throws when the screen offers no such field.
    public func type(_ text: String, into id: String) throws {
        guard case .field = try reachable(id, kind: "field") else {
            throw HarnessError("'\(id)' is not a text field", screen: screen)
        }
        send(.input(id: id, text: text))
    }

    /// Chooses row `index` of list `id`; throws when there is no such list or row.
    public func select(_ index: Int, in id: String) throws {
        guard case .list(let list) = try reachable(id, kind: "list") else {
            throw HarnessError("'\(id)' is not a list", screen: screen)
        }
        guard list.items.indices.contains(index) else {
            throw HarnessError("list '\(id)' has \(list.items.count) rows, so row \(index) cannot be chosen", screen: screen)
        }
        send(.select(id: id, index: index))
    }

    private func reachable(_ id: String, kind: String) throws -> Element {
        guard let element = element(id) else {
            throw HarnessError("no \(kind) '\(id)' can be reached on '\(location.url)'", screen: screen)
        }
        return element
    }

    private static func interactive(_ element: Element) -> [Element] {
        switch element {
        case .text: []
        case .button, .field, .list: [element]
        case .stack(let stack): stack.children.flatMap(interactive)
        }
    }
}
