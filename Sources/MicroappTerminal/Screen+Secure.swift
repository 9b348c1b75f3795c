import MicroappSDK

extension TextField {
    /// The text as front ends show it: one dot per character in a secure field, never the secret itself.
    var shownText: String { isSecure ? String(repeating: "•", count: text.count) : text }
}

extension Screen {
    /// The screen with the text of each secure field replaced by its dots, for output that leaves the process
    /// (`--ui json`): the feature still gets what was typed, through input events.
    var maskingSecureText: Screen {
        var masked = self
        masked.content = content.map(\.maskingSecureText)
        return masked
    }
}

extension Element {
    fileprivate var maskingSecureText: Element {
        switch self {
        case .field(var field):
            field.text = field.shownText
            return .field(field)
        case .stack(var stack):
            stack.children = stack.children.map(\.maskingSecureText)
            return .stack(stack)
        case .text, .button, .list:
            return self
        }
    }
}
