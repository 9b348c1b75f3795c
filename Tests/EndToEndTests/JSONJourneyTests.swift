import Foundation
import TestScratch
import Testing

@Suite("End to end: the app through --ui json", .serialized, .promptResumes)
struct JSONJourneyTests {
    @Test("a signed-out start lands on sign-in, then sign in, list, detail and back")
    func journey() async throws {
        let app = try AppProcess(["run", "--ui", "json"])
        try await app.waitFor("notice") { $0["code"] as? String == "redirect" }
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        try app.send([["type": "tap", "id": "sign-in"]])
        try await app.waitForFrame(route: "auth://sign-in")
        try app.send([
            ["type": "input", "id": "email", "text": "rick@example.com"],
            ["type": "input", "id": "password", "text": "portal-gun"],
            ["type": "tap", "id": "submit"],
        ])
        let list = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("Morty Smith") }
        #expect(list["account"] as? String == "rick@example.com")
        #expect(list["feature"] as? String == "characters")
        try app.send([["type": "select", "id": "characters", "index": 1]])
        let detail = try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Origin") }
        #expect(screenText(detail).contains("Morty Smith"))
        try app.send([["type": "back"]])
        try await app.waitFor("frame") {
            $0["route"] as? String == "characters://list" && ($0["depth"] as? Int) == 0
                && app.objects.contains { $0["route"] as? String == "characters://detail/2" }
        }
        #expect(try await app.finish() == 0)
    }

    @Test("a deep link to a guarded route redirects to sign-in and continues there after")
    func deepLinkGuard() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--open", "characters://detail/2"])
        let redirect = try await app.waitFor("notice") { $0["code"] as? String == "redirect" }
        #expect((redirect["message"] as? String)?.contains("characters://detail/2") == true)
        try await app.waitForFrame(route: "auth://select")
        try app.signInAsRick()
        let detail = try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Morty") }
        #expect(detail["account"] as? String == "rick@example.com")
        #expect(try await app.finish() == 0)
    }

    @Test("an unknown route is an error line and an error screen, not a crash")
    func unknownRoute() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--open", "nowhere://at/all"])
        let error = try await app.waitFor("error") { $0["code"] as? String == "not-found" }
        #expect((error["fix"] as? String)?.contains("microapp routes") == true)
        try await app.waitForFrame(route: "nowhere://at/all") { screenText($0).contains("Cannot open") }
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }

    @Test("a line that is not an event is reported and the run goes on")
    func badEventLine() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--open", "auth://select"])
        app.send("{this is not json")
        let error = try await app.waitFor("error") { $0["code"] as? String == "bad-event" }
        #expect((error["fix"] as? String)?.contains("\"type\"") == true)
        try app.send([["type": "tap", "id": "sign-up"]])
        try await app.waitForFrame(route: "auth://sign-up")
        #expect(try await app.finish() == 0)
    }
}
