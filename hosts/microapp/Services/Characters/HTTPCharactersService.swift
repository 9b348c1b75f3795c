import CFetch
import Foundation
import MicroappSDK

/// Characters from the Rick and Morty API (https://rickandmortyapi.com/documentation) or a service that speaks
/// it: `GET {base}/character?page=N` for a page (of the service's size, 20), `GET {base}/character/{id}` for one
/// character, `GET {base}/character/?name=Q` for a search (its first page). The API's 404 with an `error` message
/// is how it says "nothing here": an empty search, `not-found` for a page or a character. Other failures become
/// `ServiceError`s: `unavailable` (cannot connect, timed out, 5xx, 429), `bad-response` (any other status, a 404
/// that is not the API's, or a body that is not the API's JSON). Requests go through libcurl (`HTTPGet`), not
/// URLSession, so that the host's processes do not all map FoundationNetworking and libcurl at start.
public struct HTTPCharactersService: CharactersService {
    /// The service's base URL, such as `https://rickandmortyapi.com/api`.
    public let baseURL: URL
    /// How long one request may take, in whole seconds (at least 1, and a fraction rounded up: a timeout of 0.5 s
    /// would otherwise fail every request at once).
    public let timeout: TimeInterval
    /// The command-line option the base URL was given with (`--characters-url`), named when it cannot be reached so
    /// the person knows which setting to change; nil when it came from elsewhere.
    public let option: String?

    /// Talks to `baseURL`, giving each request `timeout` seconds (rounded up to a whole second); `option` is the
    /// command-line option that gave the URL, if one did.
    public init(baseURL: URL, timeout: TimeInterval = 10, option: String? = nil) {
        self.baseURL = baseURL
        self.timeout = max(1, timeout.rounded(.up))
        self.option = option
    }

    /// The URL in `text` when it is an absolute `http` or `https` URL with a host, else nil.
    public static func baseURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// One page, from `GET {base}/character?page=N`; `not-found` past the last page (and below the first, which
    /// the API would answer with page 1).
    public func page(_ request: PageRequest) async throws(ServiceError) -> CharacterPage {
        let what = "page \(request.page)"
        guard request.page >= 1 else { throw notFound(what, because: "pages start at 1") }
        switch try await get("character", query: [("page", String(request.page))], what: what) {
        case .answer(let data):
            return try decode(RickAndMortyAPI.Page.self, from: data, what: what).characterPage(number: request.page)
        case .nothingHere(let reason): throw notFound(what, because: reason)
        }
    }

    /// One character, from `GET {base}/character/{id}`; `not-found` for an id the service does not know.
    public func detail(_ request: CharacterRequest) async throws(ServiceError) -> CharacterDetail {
        let what = "character \(request.id)"
        switch try await get("character/\(request.id)", query: [], what: what) {
        case .answer(let data): return try decode(RickAndMortyAPI.Character.self, from: data, what: what).detail
        case .nothingHere(let reason): throw notFound(what, because: reason)
        }
    }

    /// The first page of characters whose name contains the text, from `GET {base}/character/?name=Q`; no
    /// match (the API's 404) and blank text (not asked) find nothing.
    public func search(_ query: SearchQuery) async throws(ServiceError) -> SearchResults {
        let text = query.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return SearchResults(characters: []) }
        let what = "characters named like '\(text)'"
        switch try await get("character/", query: [("name", text)], what: what) {
        case .answer(let data):
            return SearchResults(
                characters: try decode(RickAndMortyAPI.Page.self, from: data, what: what).results.map(\.summary))
        case .nothingHere: return SearchResults(characters: [])
        }
    }

    /// A successful answer's body, or the API's "nothing here" (a 404 with its `error` message).
    private enum Answer {
        case answer(Data)
        case nothingHere(String)
    }

    private func get(_ path: String, query: [(String, String)], what: String) async throws(ServiceError) -> Answer {
        var components = URLComponents(url: baseURL.appending(path: path), resolvingAgainstBaseURL: false)
        if !query.isEmpty {
            components?.percentEncodedQuery = query.map { "\($0)=\(Self.queryValue($1))" }.joined(separator: "&")
        }
        guard let url = components?.url else {
            throw ServiceError(code: "bad-request", message: "Cannot make a URL for \(what) from \(baseURL)")
        }
        let status: Int
        let data: Data
        do {
            (status, data) = try await HTTPGet.fetch(url, accept: "application/json", timeout: Int(timeout))
        } catch {
            throw failure(error)
        }
        guard status > 0 else {
            throw ServiceError(
                code: "bad-response", message: "The characters service at \(baseURL) sent no HTTP answer")
        }
        switch status {
        case 200..<300: return .answer(data)
        case 404:
            guard let refusal = try? JSONDecoder().decode(RickAndMortyAPI.Refusal.self, from: data) else {
                throw ServiceError(
                    code: "bad-response",
                    message: "The characters service at \(baseURL) has no \(url.path) (HTTP 404 without the API's "
                        + "error); give the API's base URL, such as https://rickandmortyapi.com/api")
            }
            return .nothingHere(refusal.error)
        case 429:
            throw ServiceError(
                code: "unavailable",
                message: "The characters service at \(baseURL) refused \(what): too many requests (HTTP 429); "
                    + "try again later")
        case 500...:
            throw ServiceError(
                code: "unavailable", message: "The characters service at \(baseURL) failed (HTTP \(status)); try again")
        default:
            throw ServiceError(
                code: "bad-response", message: "The characters service at \(baseURL) refused \(what) (HTTP \(status))")
        }
    }

    private func decode<Response: Decodable>(
        _ type: Response.Type, from data: Data, what: String
    ) throws(ServiceError) -> Response {
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw ServiceError(
                code: "bad-response",
                message: "The characters service at \(baseURL) answered \(what) with something that is not the "
                    + "Rick and Morty API's \(Response.self) (\(data.count) bytes)")
        }
    }

    private func notFound(_ what: String, because reason: String) -> ServiceError {
        ServiceError(code: "not-found", message: "The characters service has no \(what) (\(reason))")
    }

    /// `text` percent-encoded for a query value: everything but unreserved characters, so `&`, `+` and `=` in a
    /// name reach the service as text.
    private static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private func failure(_ error: HTTPGet.Failure) -> ServiceError {
        let reason: String
        switch error {
        case .cancelled:
            return ServiceError(code: "cancelled", message: "The request to the characters service was cancelled")
        case .noLibrary(let why):
            return ServiceError(
                code: "unavailable",
                message: "The characters service at \(baseURL) cannot be asked: \(MICROAPP_FETCH_LIBRARY), which makes "
                    + "the requests, cannot be loaded (\(why)); install it with `sudo apt-get install "
                    + "\(MICROAPP_FETCH_PACKAGE)`")
        case .timedOut: reason = "did not answer within \(Int(timeout)) s"
        case .refused: reason = "refused the connection"
        case .noHost: reason = "cannot be found"
        case .lost: reason = "closed the connection"
        case .failed(let why): reason = "cannot be reached (\(why))"
        }
        // Nothing listens there, or no such host: trying again will not help; the address given is what to change.
        if let option, error == .refused || error == .noHost {
            let why = error == .refused ? "nothing listens at that address" : "no such host"
            return ServiceError(
                code: "unavailable",
                message: "The characters service at \(baseURL), given with \(option), \(reason) (\(why)); "
                    + "start the service there, or give \(option) the address it listens at "
                    + "(without \(option) the app uses its bundled characters)")
        }
        return ServiceError(
            code: "unavailable", message: "The characters service at \(baseURL) \(reason); try again later")
    }
}
