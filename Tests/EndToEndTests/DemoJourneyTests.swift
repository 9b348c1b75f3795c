import Foundation
import TestScratch
import Testing

@Suite("End to end: the demo app's whole journey on real services", .promptResumes)
struct DemoJourneyTests {
    @Test(
        "sign up, list, next page, detail, search, recent query, settings, sign out, guard, sign in again, restart"
    )
    func wholeJourney() async throws {
        let data = AppProcess.freshDataDirectory()
        let email = "summer@example.com"
        let app = try AppProcess(["run", "--ui", "json", "--data", data])
        try await app.waitForFrame(route: "auth://select")
        try app.signUpAsSummer(email)
        let firstPage = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of") }
        #expect(firstPage["account"] as? String == email)

        try app.send([["type": "tap", "id": "more"]])
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 2 of") }
        try app.send([["type": "select", "id": "characters", "index": 12]])
        let detail = try await app.waitFor("frame") {
            ($0["route"] as? String)?.hasPrefix("characters://detail/") == true && screenText($0).contains("Episodes")
        }
        #expect(detail["route"] as? String == "characters://detail/13")

        try app.send([["type": "open", "url": "search://home"], ["type": "input", "id": "query", "text": "Morty"]])
        try await app.waitForFrame(route: "search://home") { screenText($0).contains("Morty Smith") }
        try app.send([["type": "select", "id": "results", "index": 0]])
        try await app.waitFor("frame") {
            ($0["route"] as? String)?.hasPrefix("characters://detail/") == true && screenText($0).contains("Morty")
        }
        // Back on Search, an empty query shows the recent searches, the one just made first.
        try app.send([["type": "back"], ["type": "input", "id": "query", "text": ""]])
        let recent = try await app.waitForFrame(route: "search://home") { screenText($0).contains("Recent searches") }
        #expect(screenText(recent).contains("Morty"))

        try app.send([["type": "open", "url": "settings://home"]])
        try await app.waitForFrame(route: "settings://home") { screenText($0).contains(email) }
        try app.send([["type": "tap", "id": "sign-out"]])
        let signedOut = try await app.waitForFrame(route: "auth://select") { $0["account"] is NSNull }
        #expect(screenText(signedOut).contains("Create account"))
        try app.send([["type": "open", "url": "settings://home"]])
        try await app.waitFor("notice") { $0["code"] as? String == "redirect" }

        try app.send([
            ["type": "open", "url": "auth://sign-in"],
            ["type": "input", "id": "email", "text": email],
            ["type": "input", "id": "password", "text": "shiny-and-new"],
            ["type": "tap", "id": "submit"],
        ])
        try await app.waitForFrame(route: "settings://home") { $0["account"] as? String == email }
        #expect(try await app.finish() == 0)

        let restarted = try AppProcess(["run", "--ui", "json", "--data", data])
        let first = try await restarted.waitFor("frame")
        #expect(first["account"] as? String == email)
        #expect(try await restarted.finish() == 0)
    }
}
