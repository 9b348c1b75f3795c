// Elements and states encode as flat objects with a "type" tag ({"type":"button","id":…}), which reads well in
// JSON frames and is easy for other front ends to switch on.

private enum TypeTag: String, Codable {
    case text, button, field, list, stack
    case view, loading, alert, error
}

private enum TagKey: String, CodingKey { case type, message }

extension Element: Codable {
    /// Decodes a tagged element.
    public init(from decoder: any Decoder) throws {
        let tag = try decoder.container(keyedBy: TagKey.self).decode(TypeTag.self, forKey: .type)
        switch tag {
        case .text: self = .text(try Text(from: decoder))
        case .button: self = .button(try Button(from: decoder))
        case .field: self = .field(try TextField(from: decoder))
        case .list: self = .list(try ListView(from: decoder))
        case .stack: self = .stack(try Stack(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: try decoder.container(keyedBy: TagKey.self),
                debugDescription: "'\(tag.rawValue)' is not an element type")
        }
    }

    /// Encodes the element with its tag.
    public func encode(to encoder: any Encoder) throws {
        var tagged = encoder.container(keyedBy: TagKey.self)
        switch self {
        case .text(let value):
            try tagged.encode(TypeTag.text, forKey: .type)
            try value.encode(to: encoder)
        case .button(let value):
            try tagged.encode(TypeTag.button, forKey: .type)
            try value.encode(to: encoder)
        case .field(let value):
            try tagged.encode(TypeTag.field, forKey: .type)
            try value.encode(to: encoder)
        case .list(let value):
            try tagged.encode(TypeTag.list, forKey: .type)
            try value.encode(to: encoder)
        case .stack(let value):
            try tagged.encode(TypeTag.stack, forKey: .type)
            try value.encode(to: encoder)
        }
    }
}

extension ScreenState: Codable {
    /// Decodes a tagged state.
    public init(from decoder: any Decoder) throws {
        let tagged = try decoder.container(keyedBy: TagKey.self)
        switch try tagged.decode(TypeTag.self, forKey: .type) {
        case .view: self = .view
        case .loading: self = .loading(try tagged.decode(String.self, forKey: .message))
        case .alert: self = .alert(try Alert(from: decoder))
        case .error: self = .error(try ErrorPanel(from: decoder))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: tagged, debugDescription: "'\(other.rawValue)' is not a screen state")
        }
    }

    /// Encodes the state with its tag.
    public func encode(to encoder: any Encoder) throws {
        var tagged = encoder.container(keyedBy: TagKey.self)
        switch self {
        case .view:
            try tagged.encode(TypeTag.view, forKey: .type)
        case .loading(let message):
            try tagged.encode(TypeTag.loading, forKey: .type)
            try tagged.encode(message, forKey: .message)
        case .alert(let alert):
            try tagged.encode(TypeTag.alert, forKey: .type)
            try alert.encode(to: encoder)
        case .error(let panel):
            try tagged.encode(TypeTag.error, forKey: .type)
            try panel.encode(to: encoder)
        }
    }
}
