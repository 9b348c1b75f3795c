import DemoServices
import Foundation
import MicroappSDK
import TestServers
import Testing

@Suite("HTTPCharactersService speaks the Rick and Morty API (a loopback server that answers like it)")
struct HTTPCharactersTests {
    /// The stub API on a loopback server, and a service pointed at its `/api`. The server lives up to 2 minutes
    /// (each test stops it at its end): in a full run a test on the main actor may wait many seconds for it.
    static func api(
        timeout: TimeInterval = 5,
        _ handler: @escaping @Sendable (String) -> LoopbackHTTPServer.Reply = RickAndMortyAPIStub.answer
    ) throws -> (LoopbackHTTPServer, HTTPCharactersService) {
        let server = try LoopbackHTTPServer(lifetime: .seconds(120), handler: handler)
        return (server, HTTPCharactersService(baseURL: URL(string: server.baseURL + "/api")!, timeout: timeout))
    }

    static let rickRow = CharacterSummary(id: 1, name: "Rick Sanchez", status: "Alive", species: "Human")

    @Test("page 1 is /character?page=1: the API's first 20 records, as many pages as its info says")
    func firstPage() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        let page = try await service.page(PageRequest(page: 1))
        #expect(page.page == 1 && page.pageCount == 7)
        #expect(page.characters.count == 20)
        #expect(page.characters.first == Self.rickRow)
        #expect(page.characters.map(\.id) == Array(1...20))
        #expect(server.targets == ["/api/character?page=1"])
    }

    @Test("the last page (next: null) ends the list; past it, the API's 404 is not-found with its message")
    func lastPage() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        let last = try await service.page(PageRequest(page: 7))
        #expect(last.page == 7 && last.pageCount == 7)
        #expect(last.characters == [CharacterSummary(id: 361, name: "Toxic Rick", status: "Dead", species: "Humanoid")])
        let past = await serviceError { _ = try await service.page(PageRequest(page: 8)) }
        #expect(
            past
                == ServiceError(
                    code: "not-found", message: "The characters service has no page 8 (There is nothing here)"))
        // The API answers page 0 with page 1: asking would list page 1 twice, so it is not asked.
        let zero = await serviceError { _ = try await service.page(PageRequest(page: 0)) }
        #expect(zero?.code == "not-found")
        #expect(server.targets == ["/api/character?page=7", "/api/character?page=8"])
    }

    @Test("pages follow what the service says (info.pages, next), whatever its page size")
    func servicePaging() async throws {
        let (server, service) = try Self.api { target in
            // Two records a page, 826 characters on 42 pages; page 3 claims 42 pages but has no next.
            let next = target.hasSuffix("page=2") ? "\"https://rickandmortyapi.com/api/character?page=3\"" : "null"
            return .respond(
                status: 200,
                body: #"{"info":{"count":826,"pages":42,"next":\#(next),"prev":null},"#
                    + #""results":[\#(RickAndMortyAPIStub.rick),\#(RickAndMortyAPIStub.morty)]}"#)
        }
        defer { server.stop() }
        let second = try await service.page(PageRequest(page: 2))
        #expect(second.pageCount == 42 && second.characters.map(\.id) == [1, 2])
        let third = try await service.page(PageRequest(page: 3))
        #expect(third.pageCount == 3, "a page without next is the last one")
    }

    @Test("a character is /character/{id}: every fact the detail screen shows, and type and gender")
    func detail() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        let morty = try await service.detail(CharacterRequest(id: 2))
        #expect(
            morty
                == CharacterDetail(
                    id: 2, name: "Morty Smith", status: "Alive", species: "Human", origin: "unknown",
                    location: "Citadel of Ricks", episodeCount: 51, gender: "Male", type: ""))
        let toxic = try await service.detail(CharacterRequest(id: 361))
        #expect(toxic.type == "Rick's Toxic Side" && toxic.origin == "Alien Spa" && toxic.episodeCount == 1)
        #expect(server.targets == ["/api/character/2", "/api/character/361"])
    }

    @Test("an id the API does not know is not-found with its message")
    func unknownCharacter() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        let error = await serviceError { _ = try await service.detail(CharacterRequest(id: 9999)) }
        #expect(
            error
                == ServiceError(
                    code: "not-found", message: "The characters service has no character 9999 (Character not found)"))
    }

    @Test("a name search is /character/?name=…, the name encoded, and lists the first page of matches")
    func search() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        let smiths = try await service.search(SearchQuery(text: " smith "))
        #expect(
            smiths.characters.map(\.name)
                == ["Morty Smith", "Summer Smith", "Beth Smith", "Jerry Smith", "Leonard Smith", "Joyce Smith"])
        let poopy = try await service.search(SearchQuery(text: "Mr. Poopy"))
        #expect(poopy.characters.map(\.name) == ["Mr. Poopybutthole"])
        let many = try await service.search(SearchQuery(text: "a"))
        #expect(many.characters.count == RickAndMortyAPIStub.pageSize, "more match: the service's first page")
        #expect(
            server.targets == [
                "/api/character/?name=smith", "/api/character/?name=Mr.%20Poopy", "/api/character/?name=a",
            ])
    }

    @Test("a name search with no match (the API's 404 and error) is an empty result, not an error")
    func searchWithoutMatch() async throws {
        let (server, service) = try Self.api()
        defer { server.stop() }
        #expect(try await service.search(SearchQuery(text: "zzzz")).characters.isEmpty)
        #expect(try await service.search(SearchQuery(text: "Rick & Morty")).characters.isEmpty)
        #expect(try await service.search(SearchQuery(text: "   ")).characters.isEmpty)
        #expect(server.targets == ["/api/character/?name=zzzz", "/api/character/?name=Rick%20%26%20Morty"])
    }

    @Test("a 404 without the API's error body is a bad-response that names the path and the base URL to give")
    func foreign404() async throws {
        let (server, service) = try Self.api { _ in .respond(status: 404, body: "<html>Not Found</html>") }
        defer { server.stop() }
        let error = await serviceError { _ = try await service.search(SearchQuery(text: "rick")) }
        #expect(
            error
                == ServiceError(
                    code: "bad-response",
                    message: "The characters service at \(server.baseURL)/api has no /api/character (HTTP 404 without "
                        + "the API's error); give the API's base URL, such as https://rickandmortyapi.com/api"))
    }

    @Test("a body that is not the API's JSON is bad-response; a 5xx or a 429 is unavailable")
    func garbage() async throws {
        let (server, service) = try Self.api { target in
            switch target {
            case "/api/character?page=1": .respond(status: 200, body: "<html>surprise</html>")
            case "/api/character?page=2": .respond(status: 429, body: "slow down")
            default: .respond(status: 503, body: "overloaded")
            }
        }
        defer { server.stop() }
        let base = server.baseURL + "/api"
        let bad = await serviceError { _ = try await service.page(PageRequest(page: 1)) }
        #expect(
            bad
                == ServiceError(
                    code: "bad-response",
                    message: "The characters service at \(base) answered page 1 with something that is not the "
                        + "Rick and Morty API's Page (21 bytes)"))
        let limited = await serviceError { _ = try await service.page(PageRequest(page: 2)) }
        #expect(
            limited
                == ServiceError(
                    code: "unavailable",
                    message: "The characters service at \(base) refused page 2: too many requests (HTTP 429); "
                        + "try again later"))
        let down = await serviceError { _ = try await service.detail(CharacterRequest(id: 1)) }
        #expect(
            down
                == ServiceError(
                    code: "unavailable", message: "The characters service at \(base) failed (HTTP 503); try again"))
    }

    @Test("a server that is down is unavailable")
    func serverDown() async throws {
        let base = "http://127.0.0.1:\(try LoopbackHTTPServer.unusedPort())"
        let service = HTTPCharactersService(baseURL: URL(string: base)!, timeout: 5)
        let error = await serviceError { _ = try await service.page(PageRequest(page: 1)) }
        #expect(
            error
                == ServiceError(
                    code: "unavailable",
                    message: "The characters service at \(base) refused the connection; try again later"))
    }

    @Test(
        "a refused connection to a URL given with --characters-url names the option: what (the address, the option), why (nothing listens there) and the fix"
    )
    func serverDownNamesTheOption() async throws {
        let base = "http://127.0.0.1:\(try LoopbackHTTPServer.unusedPort())/api"
        let service = HTTPCharactersService(baseURL: URL(string: base)!, timeout: 5, option: "--characters-url")
        let error = await serviceError { _ = try await service.page(PageRequest(page: 1)) }
        #expect(
            error
                == ServiceError(
                    code: "unavailable",
                    message: "The characters service at \(base), given with --characters-url, refused the connection "
                        + "(nothing listens at that address); start the service there, or give --characters-url the "
                        + "address it listens at (without --characters-url the app uses its bundled characters)"))
    }

    @Test("a server that never answers is unavailable after the timeout")
    func timeout() async throws {
        // The server stays silent far longer than the client waits: only the client's timeout explains the answer.
        let (server, service) = try Self.api(timeout: 1) { _ in .silence(.seconds(15)) }
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = await serviceError { _ = try await service.search(SearchQuery(text: "rick")) }
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(
            error
                == ServiceError(
                    code: "unavailable",
                    message:
                        "The characters service at \(server.baseURL)/api did not answer within 1 s; try again later"))
    }

    @Test("a request whose task is cancelled while the server is silent ends as cancelled, not at its timeout")
    func cancelled() async throws {
        // The server holds the request 15 s and the client would wait 30: only the cancellation explains the answer.
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        let (server, service) = try Self.api(timeout: 30) { _ in
            arrival.yield()
            return .silence(.seconds(15))
        }
        defer { server.stop() }
        let request = Task { await serviceError { _ = try await service.detail(CharacterRequest(id: 1)) } }
        var arrivals = arrived.makeAsyncIterator()
        _ = await arrivals.next()
        request.cancel()
        #expect(
            await request.value
                == ServiceError(code: "cancelled", message: "The request to the characters service was cancelled"))
    }

    @Test("a timeout under a second is a whole second for the requests too: an answer after 0.3 s arrives")
    func shortTimeoutRoundsUp() async throws {
        let (server, service) = try Self.api(timeout: 0.2) { _ in
            .late(.milliseconds(300), status: 200, body: RickAndMortyAPIStub.rick)
        }
        defer { server.stop() }
        #expect(service.timeout == 1)
        #expect(try await service.detail(CharacterRequest(id: 1)).name == "Rick Sanchez")
    }

    @Test("the app's characters.search service, which Search calls, asks the API by name")
    func appSearchService() async throws {
        let (server, _) = try Self.api()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let backend = try await DemoBackend.open(
            .init(dataDirectory: directory.path, charactersURL: server.baseURL + "/api", environment: .process),
            report: { _ in })
        let found = try await backend.search(SearchQuery(text: "rick"))
        #expect(found.characters.first == Self.rickRow)
        #expect(found.characters.allSatisfy { $0.name.lowercased().contains("rick") })
        #expect(try await backend.page(PageRequest(page: 1)).pageCount == 7)
        #expect(server.targets == ["/api/character/?name=rick", "/api/character?page=1"])
    }

    @Test("a characters URL that is not http(s) is a configuration error")
    func badURL() async throws {
        let directory = TemporaryDirectory()
        for text in ["not a url", "ftp://example.com", "/just/a/path", "http://"] {
            #expect(HTTPCharactersService.baseURL(text) == nil)
            let error = await #expect(throws: ConfigurationError.self) {
                _ = try await DemoBackend.open(
                    .init(dataDirectory: directory.path, charactersURL: text, environment: .process), report: { _ in })
            }
            #expect(
                error?.description
                    == "microapp: \(text): the characters URL is not an absolute http or https URL\n"
                    + "  to fix: give the API's base URL, such as https://rickandmortyapi.com/api")
        }
        #expect(HTTPCharactersService.baseURL("https://rickandmortyapi.com/api") != nil)
    }
}
