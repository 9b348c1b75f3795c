import Foundation
import TestScratch
import Testing

/// Tabs say whose they are: an untrusted feature asking for the first tab gets the last, marked with its origin.
@Suite("End to end: an untrusted feature's tab comes after the app's own and carries its origin", .promptResumes)
struct TabOriginEndToEndTests {
    @Test("an untrusted tab at order 1 comes after Characters, Search and Settings, with origin in the JSON frame")
    func untrustedTabAtOrderOne() async throws {
        let plugins = try await OriginFixtures.plugins(["Tabber"])
        let app = try OriginEndToEndTests.run("auto", plugins: plugins)
        try app.signInAsRick()
        let list = try await app.waitForFrame(route: "characters://list")
        let tabs = try #require(list["tabs"] as? [[String: Any]])
        #expect(
            tabs.compactMap { $0["id"] as? String } == ["tab.characters", "tab.search", "tab.settings", "tab.tabber"],
            "\(tabs)")
        let origins = tabs.map { ($0["origin"] as? [String: String])?["trust"] }
        #expect(origins == ["own", "own", "own", "untrusted"])
        let tabber = try #require(tabs.last?["origin"] as? [String: String])
        #expect(tabber["feature"] == "tabber")
        #expect(tabber["library"] == plugins.appendingPathComponent("libTabber.so").path)
        try app.send([["type": "tap", "id": "tab.tabber"]])
        let screen = try await app.waitForFrame(route: "tabber://home")
        #expect(screen["origin"] as? [String: String] == tabber, "the tab's origin is its screens' origin")
        #expect(try await app.finish() == 0)
    }
}
