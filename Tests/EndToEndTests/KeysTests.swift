import Foundation
import TestScratch
import Testing

@Suite("End to end: microapp keys, and a service one feature provides to another", .promptResumes)
struct KeysTests {
    static let providerSource = """
        import MicroappSDK

        public enum ClockFeature: Feature {
            static let now = DependencyKey<Service<Nothing, Array<String>>>.service("clock.now")
                .described("The time in each of the named cities")
            public static let manifest = FeatureManifest(
                id: "clock", version: 1, displayName: "Clock", routes: [RouteDeclaration("clock://home")],
                provides: [Provision(now)])
            @MainActor public static func provide(_ context: FeatureContext) throws -> Provisions {
                var provisions = Provisions()
                provisions.add(now, Service { _ in ["12:00"] })
                return provisions
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                throw DependencyError(key: "clock.now", reason: "not drawn in this test", fix: "none")
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(ClockFeature.self)
        }
        """

    @Test(
        "keys --json lists each key the host offers and each feature provides: access, types, provider, summary, users")
    func jsonListsEveryOffer() async throws {
        let plugins = try await compilePlugin(module: "Clock", source: Self.providerSource)
        let result = try await runToEnd(["keys", "--json", "--no-build", "--plugins", plugins.path])
        #expect(result.status == 0)
        let rows = result.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let keys = rows.compactMap { $0["key"] as? String }
        #expect(keys == keys.sorted(), "sorted by key")
        #expect(Set(keys).isSuperset(of: ["auth.sign-in", "characters.page", "search.recent", "session"]))

        let signIn = try #require(rows.first { $0["key"] as? String == "auth.sign-in" })
        #expect(signIn["kind"] as? String == "service")
        #expect(signIn["access"] as? String == "service")
        #expect(signIn["type"] as? String == "Service<Credentials, Session>")
        #expect(signIn["request"] as? String == "Credentials")
        #expect(signIn["response"] as? String == "Session")
        #expect(signIn["provider"] as? String == "host")
        #expect(signIn["summary"] as? String == "Checks an email and password and answers the account's session")
        #expect(signIn["usedBy"] as? [String] == ["auth"])

        let session = try #require(rows.first { $0["key"] as? String == "session" })
        #expect(session["kind"] as? String == "state")
        #expect(session["access"] as? String == "read-write")
        #expect(session["type"] as? String == "Optional<Session>")
        #expect(session["request"] == nil)
        #expect(session["usedBy"] as? [String] == ["auth", "characters", "search", "settings"])

        let summary = try #require(rows.first { $0["key"] as? String == "search.recent-summary" })
        #expect(summary["provider"] as? String == "search")
        #expect(summary["response"] as? String == "RecentSearchSummary")
        #expect(summary["usedBy"] as? [String] == ["settings"])

        let clock = try #require(rows.first { $0["key"] as? String == "clock.now" })
        #expect(clock["provider"] as? String == "clock")
        #expect(clock["request"] as? String == "Nothing")
        #expect(clock["response"] as? String == "Array<String>")
        #expect(clock["summary"] as? String == "The time in each of the named cities")
        #expect(clock["usedBy"] as? [String] == [])
        for row in rows {
            #expect(row["summary"] is String, "\(row["key"] ?? "?") has no summary: declare it with described(_:)")
        }
    }

    @Test("keys draws a table: key, access, provider, request → response, then the summary and the users")
    func textIsATable() async throws {
        let result = try await runToEnd(["keys", "--no-build"])
        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "KEY", "ACCESS", "PROVIDER", "TYPE",
            ])
        let row = try #require(lines.firstIndex { $0.hasPrefix("search.recent-summary ") })
        #expect(
            lines[row].split(separator: " ", omittingEmptySubsequences: true) == [
                "search.recent-summary", "service", "search", "Nothing", "→", "RecentSearchSummary",
            ])
        #expect(lines[row + 1] == "    How many queries the signed-in account searched recently, and the last one")
        #expect(lines[row + 2] == "    used by settings")
        let session = try #require(lines.first { $0.hasPrefix("session ") })
        #expect(session.contains("read-write") && session.hasSuffix("Optional<Session>"))
    }

    @Test("graph shows Settings' optional need of the recent-search summary met by Search")
    func graphShowsTheEdge() async throws {
        let result = try await runToEnd(["graph", "--no-build"])
        #expect(result.out.contains("search v1  (provides search.recent-summary)"))
        #expect(result.out.contains("search.recent-summary (read, optional) ← search"))
    }

    @Test("in the app, a search made in Search shows on the Settings screen through Search's service")
    func settingsShowsWhatSearchProvides() async throws {
        let app = try AppProcess(["run", "--ui", "json"])
        try await app.waitForFrame(route: "auth://select")
        try app.signInAsRick()
        try app.send([["type": "open", "url": "settings://home"]])
        try await app.waitForFrame(route: "settings://home") { screenText($0).contains("No recent searches") }

        try app.send([["type": "open", "url": "search://home"], ["type": "input", "id": "query", "text": "Morty"]])
        try await app.waitForFrame(route: "search://home") { screenText($0).contains("Morty Smith") }
        try app.send([["type": "select", "id": "results", "index": 0]])
        try await app.waitFor("frame") {
            ($0["route"] as? String)?.hasPrefix("characters://detail/") == true && screenText($0).contains("Morty")
        }
        try app.send([["type": "tap", "id": "tab.settings"]])
        try await app.waitForFrame(route: "settings://home") {
            screenText($0).contains("Recent searches: 1 (last: Morty)")
        }
        #expect(try await app.finish() == 0)
    }
}
