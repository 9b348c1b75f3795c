import Foundation
import TestScratch
import Testing

/// Signing out as a person leaving a shared computer expects: the app lands on the signed-out home, the sign-in form
/// holds nothing of theirs, and whoever signs in next starts at home, not on the screen the last person left.
@Suite("End to end: signing out forgets the person", .promptResumes)
struct SignOutTests {
    /// The text field `id` in a JSON frame's screen, as the front end received it.
    static func field(_ id: String, in frame: [String: Any]) -> [String: Any]? {
        func search(_ value: Any) -> [String: Any]? {
            if let object = value as? [String: Any] {
                if object["id"] as? String == id, object["label"] != nil { return object }
                for child in object.values { if let found = search(child) { return found } }
            } else if let array = value as? [Any] {
                for child in array { if let found = search(child) { return found } }
            }
            return nil
        }
        return frame["screen"].flatMap(search)
    }

    @Test(
        "sign in, Settings, sign out: the signed-out home, an empty sign-in form, and the next sign-in goes home, not back to Settings"
    )
    func signOutForgets() async throws {
        let app = try AppProcess(["--ui", "json", "--no-build", "--data", AppProcess.freshDataDirectory()])
        try app.signInAsRick()
        try await app.waitForFrame(route: "characters://list")
        try app.send([["type": "tap", "id": "tab.settings"]])
        try await app.waitForFrame(route: "settings://home") { screenText($0).contains("rick@example.com") }
        try app.send([["type": "tap", "id": "sign-out"]])
        try await app.waitForFrame(route: "auth://select") { $0["account"] is NSNull }
        try app.send([["type": "open", "url": "auth://sign-in"]])
        let form = try await app.waitForFrame(route: "auth://sign-in")
        #expect(Self.field("email", in: form)?["text"] as? String == "", "\(form)")
        #expect(Self.field("password", in: form)?["text"] as? String == "", "\(form)")
        try app.send([
            ["type": "input", "id": "email", "text": "rick@example.com"],
            ["type": "input", "id": "password", "text": "portal-gun"],
            ["type": "tap", "id": "submit"],
        ])
        let next = try await app.waitFor("frame") { $0["account"] != nil && !($0["account"] is NSNull) }
        #expect(next["route"] as? String == "characters://list", "home, not the last person's Settings: \(next)")
        #expect(try await app.finish() == 0)
    }
}
