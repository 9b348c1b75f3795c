import DemoServices
import Foundation
import MicroappSDK
import Testing

@Suite("HTTPCharactersService against a loopback server the test starts")
struct HTTPCharactersTests {
    /// Answers the app's three endpoints from the bundled catalog, under `/api`.
    static func catalogHandler(_ target: String) -> LoopbackHTTPServer.Reply {
        let catalog = CharacterCatalog()
        let components = URLComponents(string: target)
        let query = Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let path = components?.path ?? ""
        let encoder = JSONEncoder()
        do throws(ServiceError) {
            let body: Data?
            if path == "/api/characters", let page = query["page"].flatMap(Int.init) {
                body = try? encoder.encode(try catalog.page(PageRequest(page: page)))
            } else if path == "/api/characters", let name = query["name"] {
                body = try? encoder.encode(catalog.search(SearchQuery(text: name)))
            } else if path.hasPrefix("/api/characters/"), let id = Int(path.dropFirst("/api/characters/".count)) {
                body = try? encoder.encode(try catalog.detail(CharacterRequest(id: id)))
            } else {
                body = nil
            }
            return .respond(status: body == nil ? 404 : 200, body: String(decoding: body ?? Data(), as: UTF8.self))
        } catch {
            return .respond(status: 404, body: "{\"error\":\"not found\"}")
        }
    }

    @Test("pages, details and searches come from the server's JSON")
    func answers() async throws {
        let server = try LoopbackHTTPServer(handler: Self.catalogHandler)
        defer { server.stop() }
        let service = HTTPCharactersService(baseURL: URL(string: server.baseURL + "/api")!, timeout: 5)
        let catalog = CharacterCatalog()
        #expect(try await service.page(PageRequest(page: 2)) == catalog.page(PageRequest(page: 2)))
        #expect(try await service.detail(CharacterRequest(id: 42)).name == "Birdperson")
        let found = try await service.search(SearchQuery(text: "Mr. Poopy"))
        #expect(found.characters.map(\.name) == ["Mr. Poopybutthole"])
        #expect(server.targets == ["/api/characters?page=2", "/api/characters/42", "/api/characters?name=Mr.%20Poopy"])
    }

    @Test("HTTP 404 is not-found")
    func notFound() async throws {
        let server = try LoopbackHTTPServer(handler: Self.catalogHandler)
        defer { server.stop() }
        let service = HTTPCharactersService(baseURL: URL(string: server.baseURL + "/api")!, timeout: 5)
        let error = await serviceError { _ = try await service.detail(CharacterRequest(id: 9999)) }
        #expect(error == ServiceError(code: "not-found", message: "The characters service has no character 9999"))
    }

    @Test("a body that is not the expected JSON is bad-response; a 5xx is unavailable")
    func garbage() async throws {
        let server = try LoopbackHTTPServer { target in
            target.contains("page=1")
                ? .respond(status: 200, body: "<html>surprise</html>")
                : .respond(status: 503, body: "overloaded")
        }
        defer { server.stop() }
        let service = HTTPCharactersService(baseURL: URL(string: server.baseURL)!, timeout: 5)
        let bad = await serviceError { _ = try await service.page(PageRequest(page: 1)) }
        #expect(bad?.code == "bad-response")
        #expect(
            bad?.message
                == "The characters service at \(server.baseURL) answered something that is not CharacterPage (21 bytes)"
        )
        let down = await serviceError { _ = try await service.page(PageRequest(page: 2)) }
        #expect(down?.code == "unavailable")
        #expect(down?.message.contains("failed (HTTP 503)") == true)
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

    @Test("a server that never answers is unavailable after the timeout")
    func timeout() async throws {
        // The server stays silent far longer than the client waits: only the client's timeout explains the answer.
        let server = try LoopbackHTTPServer { _ in .silence(.seconds(15)) }
        defer { server.stop() }
        let service = HTTPCharactersService(baseURL: URL(string: server.baseURL)!, timeout: 1)
        let start = ContinuousClock.now
        let error = await serviceError { _ = try await service.search(SearchQuery(text: "rick")) }
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(
            error
                == ServiceError(
                    code: "unavailable",
                    message: "The characters service at \(server.baseURL) did not answer within 1 s; try again later"))
    }

    @Test("a characters URL that is not http(s) is a configuration error")
    @MainActor func badURL() throws {
        let directory = TemporaryDirectory()
        for text in ["not a url", "ftp://example.com", "/just/a/path", "http://"] {
            #expect(HTTPCharactersService.baseURL(text) == nil)
            let error = #expect(throws: ConfigurationError.self) {
                _ = try DemoBackend(.init(dataDirectory: directory.path, charactersURL: text), report: { _ in })
            }
            #expect(
                error?.description
                    == "microapp: \(text): the characters URL is not an absolute http or https URL\n  to fix: give a URL such as http://127.0.0.1:8080/api"
            )
        }
        #expect(HTTPCharactersService.baseURL("https://example.com/api") != nil)
        #expect(HTTPCharactersService(baseURL: URL(string: "http://127.0.0.1")!, timeout: 0.2).timeout == 1)
    }
}
