import Foundation
import TestScratch
import TestServers
import Testing

@Suite(
    "End to end: microapp run --characters-url reads characters from the Rick and Morty API (a loopback stand-in)",
    .promptResumes)
struct CharactersAPIEndToEndTests {
    @Test("list, detail and Search come from the API: page 1 of 7, a record's facts, a match opens, no match says so")
    func browseTheAPI() async throws {
        let server = try LoopbackHTTPServer(lifetime: .seconds(120), handler: RickAndMortyAPIStub.answer)
        defer { server.stop() }
        let app = try AppProcess(["run", "--ui", "json", "--characters-url", server.baseURL + "/api"])
        // A start asks the network nothing, and no process of the app maps libcurl until the first request (nor
        // libmicrohttpd, nor Foundation's networking, which links libcurl): each is opened when first needed.
        try await app.waitForFrame(route: "auth://select") { _ in true }
        #expect(Self.networkLibraries(mappedBy: app) == [])
        try app.signInAsRick()
        // 7 pages is the API's paging (20 a page); the bundled catalog pages differently.
        let list = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of 7") }
        #expect(screenText(list).contains("Rick Sanchez") && screenText(list).contains("Morty Smith"))
        #expect(Self.networkLibraries(mappedBy: app) == ["libcurl.so.4"])

        try app.send([["type": "select", "id": "characters", "index": 0]])
        let rick = try await app.waitForFrame(route: "characters://detail/1") { screenText($0).contains("Origin") }
        for line in ["Origin: Earth (C-137)", "Location: Citadel of Ricks", "Gender: Male", "Episodes: 51"] {
            #expect(screenText(rick).contains(line), "\(line) in \(screenText(rick))")
        }

        let found = app.mark
        try app.send([
            ["type": "open", "url": "search://home"],
            ["type": "input", "id": "query", "text": "Morty Smith"],
            ["type": "select", "id": "results", "index": 0],
        ])
        let morty = try await app.waitFor("frame", since: found) {
            $0["route"] as? String == "characters://detail/2" && screenText($0).contains("Origin")
        }
        #expect(screenText(morty).contains("Morty Smith") && screenText(morty).contains("Origin: unknown"))

        let unmatched = app.mark
        try app.send([
            ["type": "open", "url": "search://home"],
            ["type": "input", "id": "query", "text": "zzz"],
        ])
        let none = try await app.waitFor("frame", since: unmatched) {
            $0["route"] as? String == "search://home" && screenText($0).contains("No characters match")
        }
        #expect(screenText(none).contains("No characters match “zzz”"))
        #expect(Self.stateType(of: none) == "view", "a search with no match is not an error: \(screenText(none))")
        #expect(try await app.finish() == 0)

        // Every screen above came from the server: the page, both records, both searches.
        for target in [
            "/api/character?page=1", "/api/character/1", "/api/character/?name=Morty%20Smith", "/api/character/2",
            "/api/character/?name=zzz",
        ] {
            #expect(server.targets.contains(target), "\(target) in \(server.targets)")
        }
    }

    @Test("with nothing listening at the characters URL, the list shows its error state with Retry")
    func serviceDown() async throws {
        let base = "http://127.0.0.1:\(try LoopbackHTTPServer.unusedPort())/api"
        let app = try AppProcess(["run", "--ui", "json", "--characters-url", base])
        try app.signInAsRick()
        let list = try await app.waitForFrame(route: "characters://list") { Self.stateType(of: $0) == "error" }
        let state = (list["screen"] as? [String: Any])?["state"] as? [String: Any]
        #expect(state?["title"] as? String == "Could not load characters")
        // What (the address and the option that gave it), why, and the fix.
        #expect(
            state?["message"] as? String
                == "The characters service at \(base), given with --characters-url, refused the connection (nothing "
                + "listens at that address); start the service there, or give --characters-url the address it listens "
                + "at (without --characters-url the app uses its bundled characters)")
        let actions = state?["actions"] as? [[String: Any]] ?? []
        #expect(actions.contains { $0["id"] as? String == "retry" && $0["title"] as? String == "Retry" })
        #expect(try await app.finish() == 0)
    }

    @Test(
        "an isolated Characters waiting longer than the request deadline for the host's slow characters service is not stopped as hung"
    )
    func slowHostServiceIsNotAHang() async throws {
        // The list's first page comes 1.2 s late; the watchdog's deadline is 300 ms. The child is not hung: it waits
        // for the host's answer to its own service call, and that time is the host's.
        let server = try LoopbackHTTPServer(lifetime: .seconds(120)) { target in
            guard case .respond(let status, let body) = RickAndMortyAPIStub.answer(target) else {
                return RickAndMortyAPIStub.answer(target)
            }
            return target.hasPrefix("/api/character?page=")
                ? .late(.milliseconds(1200), status: status, body: body)
                : .respond(status: status, body: body)
        }
        defer { server.stop() }
        let app = try AppProcess(
            ["run", "--ui", "json", "--isolation", "process", "--characters-url", server.baseURL + "/api"],
            environment: ["MICROAPP_FEATURE_DEADLINE_MS": "300"])
        try app.signInAsRick()
        let hung = { app.objects.contains { $0["code"] as? String == "feature-hung" } }
        let listed = {
            app.objects.last {
                $0["route"] as? String == "characters://list" && screenText($0).contains("page 1 of 7")
            }
        }
        try await app.waitUntil { hung() || listed() != nil }
        #expect(!hung(), "stopped as hung while the host fetched its page")
        #expect(listed().map(screenText)?.contains("Rick Sanchez") == true)
        #expect(try await app.finish() == 0)
    }

    /// The `type` of a frame's screen state: view, loading, alert or error.
    /// Which of libcurl, libmicrohttpd and FoundationNetworking a process of `app` (it, its supervised app, their
    /// children) maps now.
    static func networkLibraries(mappedBy app: AppProcess) -> Set<String> {
        let maps = ([app.processID] + descendants(of: app.processID)).map { procText("/proc/\($0)/maps") }
        return Set(
            ["libcurl.so.4", "libmicrohttpd.so.12", "libFoundationNetworking.so"].filter { library in
                maps.contains { $0.contains("/" + library) }
            })
    }

    static func stateType(of frame: [String: Any]) -> String? {
        ((frame["screen"] as? [String: Any])?["state"] as? [String: Any])?["type"] as? String
    }
}
