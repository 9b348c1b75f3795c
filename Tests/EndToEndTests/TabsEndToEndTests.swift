import Foundation
import TestScratch
import Testing

/// The tabs of a frame as `[*]id title route` (`*` when selected), in order.
private func tabList(_ frame: [String: Any]) -> [String] {
    (frame["tabs"] as? [[String: Any]] ?? []).map { tab in
        let fields = ["id", "title", "route"].map { tab[$0] as? String ?? "?" }
        return (tab["selected"] as? Bool == true ? "*" : "") + fields.joined(separator: " ")
    }
}

@Suite("End to end: tabs and deep links through --ui json", .serialized, .promptResumes)
struct TabsEndToEndTests {
    static let signedInTabs = [
        "tab.characters Characters characters://list", "tab.search Search search://home",
        "tab.settings Settings settings://home",
    ]

    /// `signedInTabs` with the tab of `id` selected.
    static func tabs(selecting id: String) -> [String] {
        signedInTabs.map { $0.hasPrefix(id + " ") ? "*" + $0 : $0 }
    }

    @Test("a deep link lands after sign-in with the tabs, back reaches the list, and a tap on a tab opens its route")
    func deepLinkTabsAndBack() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--open", "characters://detail/2"])
        let select = try await app.waitForFrame(route: "auth://select")
        #expect(tabList(select).isEmpty, "signed out: no tabs")
        #expect(select["tabs"] as? [Any] != nil, "the key is there, empty")
        try app.signInAsRick()
        let detail = try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Morty") }
        #expect(tabList(detail) == Self.tabs(selecting: "tab.characters"))
        #expect(detail["depth"] as? Int == 1, "the list is under the deep link")

        try app.send([["type": "back"]])
        let list = try await app.waitForFrame(route: "characters://list") { $0["depth"] as? Int == 0 }
        #expect(tabList(list) == Self.tabs(selecting: "tab.characters"))

        try app.send([["type": "tap", "id": "tab.settings"]])
        let settings = try await app.waitForFrame(route: "settings://home") { screenText($0).contains("Sign out") }
        #expect(tabList(settings) == Self.tabs(selecting: "tab.settings"))
        try app.send([["type": "tap", "id": "tab.search"]])
        let search = try await app.waitForFrame(route: "search://home")
        #expect(tabList(search) == Self.tabs(selecting: "tab.search"))
        try app.send([["type": "tap", "id": "tab.characters"]])
        try await app.waitFor("frame") {
            $0["route"] as? String == "characters://list" && $0["depth"] as? Int == 0
                && app.objects.contains { $0["route"] as? String == "search://home" }
        }
        #expect(try await app.finish() == 0)
    }

    @Test("solo shows only the loaded feature's tab")
    func soloShowsItsOwnTab() async throws {
        let app = try AppProcess(["solo", "Settings", "--ui", "json"])
        let frame = try await app.waitForFrame(route: "settings://home")
        #expect(tabList(frame) == ["*tab.settings Settings settings://home"])
        #expect(try await app.finish() == 0)
    }
}
