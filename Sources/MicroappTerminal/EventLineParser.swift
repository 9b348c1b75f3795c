import Foundation
import MicroappCore
import MicroappSDK

/// Turns one input line into an `Event`: a JSON event (`{"type":"tap","id":"sign-in"}`) or, for `--ui text`,
/// a short command (`tap sign-in`, `input email rick@example.com`, `select characters 2`, `back`, `open URL`,
/// `rollback FEATURE`, `check-updates`, `quit`).
public enum EventLineParser {
    /// A JSON event that decodes, shown in fixes.
    public static let jsonExample = #"{"type":"tap","id":"sign-in"}"#

    /// The commands `--ui text` understands, shown in fixes.
    public static let commandHelp =
        "tap ID · input ID TEXT · select ID INDEX · back · open URL · rollback FEATURE · check-updates · quit "
        + "(or a JSON event)"

    /// Decodes one JSON event line; the error says why in words (`missing "id"`, `not valid JSON`).
    public static func parseJSON(_ line: String) -> Result<Event, ParseFailure> {
        do {
            return .success(try JSONDecoder().decode(Event.self, from: Data(line.utf8)))
        } catch let error as DecodingError {
            return .failure(ParseFailure(reason: describe(error)))
        } catch {
            return .failure(ParseFailure(reason: "not valid JSON"))
        }
    }

    /// Reads a text command, or a JSON event when the line starts with `{`.
    public static func parseCommand(_ line: String) -> Result<Event, ParseFailure> {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") { return parseJSON(trimmed) }
        let words = trimmed.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first else { return .failure(ParseFailure(reason: "empty command")) }
        let argument = words.count > 1 ? words[1] : nil
        let rest = words.count > 2 ? words[2] : nil
        switch (verb, argument, rest) {
        case ("tap", let id?, nil): return .success(.action(.tap(id: id)))
        case ("input", let id?, _): return .success(.action(.input(id: id, text: rest ?? "")))
        case ("select", let id?, let index?):
            guard let index = Int(index) else {
                return .failure(ParseFailure(reason: "'\(index)' is not a row number"))
            }
            return .success(.action(.select(id: id, index: index)))
        case ("back", nil, nil): return .success(.back)
        case ("open", let url?, nil): return .success(.open(url: url))
        case ("rollback", let feature?, nil): return .success(.rollback(feature: feature))
        case ("check-updates", nil, nil): return .success(.checkUpdates)
        case ("quit", nil, nil): return .success(.quit)
        case ("tap", _, _), ("input", _, _), ("select", _, _), ("back", _, _), ("open", _, _), ("rollback", _, _),
            ("check-updates", _, _), ("quit", _, _):
            return .failure(ParseFailure(reason: "wrong arguments for '\(verb)'"))
        default: return .failure(ParseFailure(reason: "'\(verb)' is not a command"))
        }
    }

    /// Why a line is not an event.
    public struct ParseFailure: Error, Equatable, Sendable {
        /// The reason in words.
        public var reason: String
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let name = type == Int.self ? "a number" : type == String.self ? "a string" : "\(type)"
            let key = context.codingPath.last.map { "\"\($0.stringValue)\" " } ?? ""
            return context.codingPath.isEmpty ? "not a JSON object" : "\(key)should be \(name)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription
        @unknown default: return "not an event"
        }
    }
}
