import MicroappSDK

extension RootDriver {
    /// The element with `id` a person can reach now: content in the view state, the alert's or error's
    /// actions over it, nothing while loading.
    public func element(_ id: String) -> Element? {
        screen.reachableElements.first { $0.id == id }
    }

    /// The text field `id` as drawn now, if a person can reach it.
    public func field(_ id: String) -> TextField? {
        guard case .field(let field) = element(id) else { return nil }
        return field
    }

    /// The list `id` as drawn now, if a person can reach it.
    public func list(_ id: String) -> ListView? {
        guard case .list(let list) = element(id) else { return nil }
        return list
    }

    /// The button `id` as drawn now, if a person can reach it.
    public func button(_ id: String) -> Button? {
        guard case .button(let button) = element(id) else { return nil }
        return button
    }

    /// Taps the enabled button `id`; throws when the screen offers no such button.
    public func tap(_ id: String) throws(Failure) {
        try send(.tap(id: id))
    }

    /// Replaces the text of field `id` with `text`; throws when the screen offers no such field.
    public func type(_ text: String, into id: String) throws(Failure) {
        try send(.input(id: id, text: text))
    }

    /// Chooses row `index` of list `id`; throws when there is no such list or row.
    public func select(_ index: Int, in id: String) throws(Failure) {
        try send(.select(id: id, index: index))
    }
}

extension Screen {
    /// The words of every static text in the content, depth first, as a test reads them.
    public var texts: [String] { content.flatMap(\.texts) }
}

extension Element {
    fileprivate var texts: [String] {
        switch self {
        case .text(let text): [text.value]
        case .button, .field, .list: []
        case .stack(let stack): stack.children.flatMap(\.texts)
        }
    }
}
