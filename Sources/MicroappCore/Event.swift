import MicroappSDK

/// Everything a front end can ask of the host: the feature actions plus navigation, rollback, an update check and
/// quitting. It is the
/// front end's vocabulary, not a feature's, so it lives with the host and not in the SDK.
/// Its JSON form is the `--ui json` input line: `{"type":"tap","id":"sign-in"}`.
public enum Event: Sendable, Equatable {
    /// An action for the feature on screen.
    case action(Action)
    /// Go back one screen.
    case back
    /// Open a route URL.
    case open(url: String)
    /// Go back to the previous working version of a feature (hot swap).
    case rollback(feature: String)
    /// Check the app's channel for updates now (`run --channel`), in the background.
    case checkUpdates
    /// End the run.
    case quit
}

extension Event: Codable {
    private enum Key: String, CodingKey { case type, id, text, index, url, feature }

    /// Decodes `{"type":"tap","id":…}` and its siblings.
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Key.self)
        let type = try object.decode(String.self, forKey: .type)
        switch type {
        case "tap": self = .action(.tap(id: try object.decode(String.self, forKey: .id)))
        case "input":
            self = .action(
                .input(
                    id: try object.decode(String.self, forKey: .id),
                    text: try object.decode(String.self, forKey: .text)))
        case "select":
            self = .action(
                .select(
                    id: try object.decode(String.self, forKey: .id),
                    index: try object.decode(Int.self, forKey: .index)))
        case "back": self = .back
        case "open": self = .open(url: try object.decode(String.self, forKey: .url))
        case "rollback": self = .rollback(feature: try object.decode(String.self, forKey: .feature))
        case "check-updates": self = .checkUpdates
        case "quit": self = .quit
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: object,
                debugDescription:
                    "'\(type)' is not an event type (tap, input, select, back, open, rollback, check-updates, quit)")
        }
    }

    /// Encodes the event as one JSON object with a `type`.
    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: Key.self)
        switch self {
        case .action(.tap(let id)):
            try object.encode("tap", forKey: .type)
            try object.encode(id, forKey: .id)
        case .action(.input(let id, let text)):
            try object.encode("input", forKey: .type)
            try object.encode(id, forKey: .id)
            try object.encode(text, forKey: .text)
        case .action(.select(let id, let index)):
            try object.encode("select", forKey: .type)
            try object.encode(id, forKey: .id)
            try object.encode(index, forKey: .index)
        case .action(let action):
            // Actions are not frozen: a later SDK minor may name one this host has no JSON form for.
            throw EncodingError.invalidValue(
                action, .init(codingPath: encoder.codingPath, debugDescription: "an action this host cannot encode"))
        case .back: try object.encode("back", forKey: .type)
        case .open(let url):
            try object.encode("open", forKey: .type)
            try object.encode(url, forKey: .url)
        case .rollback(let feature):
            try object.encode("rollback", forKey: .type)
            try object.encode(feature, forKey: .feature)
        case .checkUpdates: try object.encode("check-updates", forKey: .type)
        case .quit: try object.encode("quit", forKey: .type)
        }
    }
}
