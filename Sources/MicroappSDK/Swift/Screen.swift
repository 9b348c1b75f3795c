/// What a feature shows: a title, content, and the state the screen is in. The host draws it.
///
/// A screen is a value: texts, buttons, fields, lists and stacks, in the state `.view`, `.loading`, `.alert` or
/// `.error`. Every interactive element has a stable `id` that actions name. The terminal, plain-text and JSON
/// front ends all draw the same value.
///
/// ```swift
/// Screen(
///     title: "Settings",
///     content: [.text(Text("Signed in as Rick")), .button(Button(id: "sign-out", title: "Sign out"))],
///     state: signingOut ? .loading("Signing out…") : .view)
/// ```
public struct Screen: Codable, Sendable, Equatable {
    /// Shown at the top of the content.
    public var title: String
    /// The elements, top to bottom.
    public var content: [Element]
    /// View, loading, alert or error.
    public var state: ScreenState
    /// Work under way that will change this screen while it stays usable (`Searching…` during a debounced search);
    /// nil when there is none. A person may go on acting; scripted events wait until it ends, as they wait for loading.
    public var busy: String?

    /// Creates a screen.
    public init(title: String, content: [Element], state: ScreenState = .view, busy: String? = nil) {
        self.title = title
        self.content = content
        self.state = state
        self.busy = busy
    }

    /// Every interactive element, depth first, in the order focus moves through them.
    public var interactiveElements: [Element] {
        content.flatMap(\.interactiveElements) + state.interactiveElements
    }

    /// What a person can reach now: the content in the view state, only the alert's or error's actions while one
    /// is shown, nothing while loading. Front ends move focus over these; tests act only on these.
    public var reachableElements: [Element] {
        switch state {
        case .view: content.flatMap(\.interactiveElements)
        case .loading, .alert, .error: state.interactiveElements
        }
    }

    /// Why a person could not do `action` on this screen (no such element within reach, a disabled button, a row
    /// that is not there); nil when they could. The host delivers only actions a person could do.
    public func refusal(of action: Action) -> String? {
        let id: String
        let kind: String
        switch action {
        case .tap(let tapped): (id, kind) = (tapped, "button")
        case .input(let field, _): (id, kind) = (field, "text field")
        case .select(let list, _): (id, kind) = (list, "list")
        }
        let element = reachableElements.first { $0.id == id }
        switch (action, element) {
        case (.tap, .button(let button)?):
            return button.isEnabled ? nil : "button '\(id)' is disabled"
        case (.input, .field?):
            return nil
        case (.select(_, let index), .list(let list)?):
            return list.items.indices.contains(index)
                ? nil : "list '\(id)' has \(list.items.count) rows, so row \(index) cannot be chosen"
        default:
            return "no \(kind) '\(id)' can be reached on this screen"
        }
    }

    /// The element with a stable id, if the screen has it.
    public func element(id: String) -> Element? {
        interactiveElements.first { $0.id == id }
    }
}

/// The state a screen is in.
@frozen public enum ScreenState: Sendable, Equatable {
    /// The content, ready to use.
    case view
    /// Work in progress: a spinner line with this message replaces the content.
    case loading(String)
    /// A boxed message with its actions over the content.
    case alert(Alert)
    /// Something failed: what failed, and the actions offered (usually Retry).
    case error(ErrorPanel)

    var interactiveElements: [Element] {
        switch self {
        case .view, .loading: []
        case .alert(let alert): alert.actions.map(Element.button)
        case .error(let panel): panel.actions.map(Element.button)
        }
    }
}

/// A message that needs an answer before the screen can be used again.
public struct Alert: Codable, Sendable, Equatable {
    /// Short headline.
    public var title: String
    /// What happened.
    public var message: String
    /// The answers; their taps go to the feature like any button.
    public var actions: [Button]

    /// Creates an alert.
    public init(title: String, message: String, actions: [Button]) {
        self.title = title
        self.message = message
        self.actions = actions
    }
}

/// The error state: what failed and what can be done.
public struct ErrorPanel: Codable, Sendable, Equatable {
    /// What failed.
    public var title: String
    /// Why, in words a person understands.
    public var message: String
    /// Usually a Retry button.
    public var actions: [Button]

    /// Creates an error panel.
    public init(title: String, message: String, actions: [Button]) {
        self.title = title
        self.message = message
        self.actions = actions
    }
}

/// One piece of a screen.
@frozen public indirect enum Element: Sendable, Equatable {
    /// Static text.
    case text(Text)
    /// Something to press.
    case button(Button)
    /// An editable line of text.
    case field(TextField)
    /// Rows to choose from.
    case list(ListView)
    /// Elements laid out together.
    case stack(Stack)

    /// The stable id of an interactive element; nil for text and stacks.
    public var id: String? {
        switch self {
        case .text, .stack: nil
        case .button(let button): button.id
        case .field(let field): field.id
        case .list(let list): list.id
        }
    }

    var interactiveElements: [Element] {
        switch self {
        case .text: []
        case .button, .field, .list: [self]
        case .stack(let stack): stack.children.flatMap(\.interactiveElements)
        }
    }
}

/// Static text with a role that decides how it is drawn.
public struct Text: Codable, Sendable, Equatable {
    /// How the text is meant.
    @frozen public enum Style: String, Codable, Sendable {
        /// Ordinary text.
        case body
        /// A heading.
        case headline
        /// Secondary, dimmer text.
        case caption
        /// An error message.
        case error
    }
    /// The words shown.
    public var value: String
    /// How they are meant.
    public var style: Style

    /// Creates text.
    public init(_ value: String, style: Style = .body) {
        self.value = value
        self.style = style
    }
}

/// A button; a tap sends `Action.tap(id)` to the feature.
public struct Button: Codable, Sendable, Equatable {
    /// Stable id, unique in the screen.
    public var id: String
    /// The label.
    public var title: String
    /// False draws it dimmed and ignores taps.
    public var isEnabled: Bool

    /// Creates a button.
    public init(id: String, title: String, isEnabled: Bool = true) {
        self.id = id
        self.title = title
        self.isEnabled = isEnabled
    }
}

/// An editable line of text; each edit sends `Action.input(id, text)` with the whole new text.
public struct TextField: Codable, Sendable, Equatable {
    /// Stable id, unique in the screen.
    public var id: String
    /// What the field is for.
    public var label: String
    /// The current text.
    public var text: String
    /// Shown dimmed while the text is empty.
    public var placeholder: String
    /// Draws the text as dots (passwords).
    public var isSecure: Bool
    /// A validation message shown under the field.
    public var error: String?

    /// Creates a text field.
    public init(
        id: String, label: String, text: String = "", placeholder: String = "", isSecure: Bool = false,
        error: String? = nil
    ) {
        self.id = id
        self.label = label
        self.text = text
        self.placeholder = placeholder
        self.isSecure = isSecure
        self.error = error
    }
}

/// Rows to choose from; choosing sends `Action.select(id, index)`.
public struct ListView: Codable, Sendable, Equatable {
    /// One row: a title and optional further columns.
    public struct Item: Codable, Sendable, Equatable {
        /// The main text of the row.
        public var title: String
        /// Further columns (status, species, …).
        public var columns: [String]

        /// Creates a row.
        public init(_ title: String, columns: [String] = []) {
            self.title = title
            self.columns = columns
        }
    }
    /// Stable id, unique in the screen.
    public var id: String
    /// The rows.
    public var items: [Item]
    /// A line under the rows (`page 1 of 5`), if any.
    public var footer: String?
    /// The row to focus first.
    public var selectedIndex: Int?

    /// Creates a list.
    public init(id: String, items: [Item], footer: String? = nil, selectedIndex: Int? = nil) {
        self.id = id
        self.items = items
        self.footer = footer
        self.selectedIndex = selectedIndex
    }
}

/// Elements laid out in a column or a row.
public struct Stack: Codable, Sendable, Equatable {
    /// Column or row.
    @frozen public enum Axis: String, Codable, Sendable {
        /// Top to bottom.
        case vertical
        /// Left to right.
        case horizontal
    }
    /// Column or row.
    public var axis: Axis
    /// The elements.
    public var children: [Element]

    /// Creates a stack.
    public init(_ axis: Axis, _ children: [Element]) {
        self.axis = axis
        self.children = children
    }
}
