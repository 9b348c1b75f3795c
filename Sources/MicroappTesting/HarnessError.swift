import Foundation
import MicroappSDK

/// Why a harness call could not do what a test asked, with the screen it was looking at.
public struct HarnessError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var reason: String
    /// The screen on top when it went wrong, if there was one.
    public var screen: Screen?

    /// Creates an error.
    public init(_ reason: String, screen: Screen? = nil) {
        self.reason = reason
        self.screen = screen
    }

    /// The reason, then the screen as indented JSON.
    public var description: String {
        guard let screen else { return reason }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(screen)).map { String(decoding: $0, as: UTF8.self) } ?? "\(screen)"
        return "\(reason)\nscreen:\n\(json)"
    }
}
