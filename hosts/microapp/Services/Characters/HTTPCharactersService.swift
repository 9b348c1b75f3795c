import Foundation
import MicroappSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Characters from an HTTP service that speaks the app's JSON: `GET {base}/characters?page=N` answers a
/// `CharacterPage`, `GET {base}/characters/{id}` a `CharacterDetail`, `GET {base}/characters?name=Q` a
/// `SearchResults`. Failures become `ServiceError`s: `unavailable` (cannot connect, timed out, 5xx),
/// `not-found` (404), `bad-response` (any other status, or a body that is not the expected JSON).
public struct HTTPCharactersService: CharactersService {
    /// The service's base URL, such as `http://127.0.0.1:8080/api`.
    public let baseURL: URL
    /// How long one request may take, in whole seconds (at least 1: Foundation on Linux truncates fractions,
    /// and a timeout of 0.5 s would fail every request at once).
    public let timeout: TimeInterval
    private let session: URLSession

    /// Talks to `baseURL`, giving each request `timeout` seconds (rounded up to a whole second).
    public init(baseURL: URL, timeout: TimeInterval = 10) {
        self.baseURL = baseURL
        self.timeout = max(1, timeout.rounded(.up))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// The URL in `text` when it is an absolute `http` or `https` URL with a host, else nil.
    public static func baseURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// One page, from `GET {base}/characters?page=N`.
    public func page(_ request: PageRequest) async throws(ServiceError) -> CharacterPage {
        try await get("characters", query: ["page": String(request.page)], what: "page \(request.page)")
    }

    /// One character, from `GET {base}/characters/{id}`.
    public func detail(_ request: CharacterRequest) async throws(ServiceError) -> CharacterDetail {
        try await get("characters/\(request.id)", query: [:], what: "character \(request.id)")
    }

    /// Search results, from `GET {base}/characters?name=Q`; blank text finds nothing without asking.
    public func search(_ query: SearchQuery) async throws(ServiceError) -> SearchResults {
        let text = query.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return SearchResults(characters: []) }
        return try await get("characters", query: ["name": text], what: "characters named like '\(text)'")
    }

    private func get<Response: Decodable>(
        _ path: String, query: [String: String], what: String
    ) async throws(ServiceError) -> Response {
        var components = URLComponents(url: baseURL.appending(path: path), resolvingAgainstBaseURL: false)
        components?.queryItems = query.isEmpty ? nil : query.map { URLQueryItem(name: $0.key, value: $0.value) }
        guard let url = components?.url else {
            throw ServiceError(code: "bad-request", message: "Cannot make a URL for \(what) from \(baseURL)")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw failure(error)
        }
        guard let status = (response as? HTTPURLResponse)?.statusCode else {
            throw ServiceError(
                code: "bad-response", message: "The characters service at \(baseURL) sent no HTTP answer")
        }
        switch status {
        case 200..<300: break
        case 404: throw ServiceError(code: "not-found", message: "The characters service has no \(what)")
        case 500...:
            throw ServiceError(
                code: "unavailable", message: "The characters service at \(baseURL) failed (HTTP \(status)); try again")
        default:
            throw ServiceError(
                code: "bad-response", message: "The characters service at \(baseURL) refused \(what) (HTTP \(status))")
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw ServiceError(
                code: "bad-response",
                message: "The characters service at \(baseURL) answered something that is not \(Response.self) "
                    + "(\(data.count) bytes)")
        }
    }

    private func failure(_ error: any Error) -> ServiceError {
        if error is CancellationError || (error as? URLError)?.code == .cancelled {
            return ServiceError(code: "cancelled", message: "The request to the characters service was cancelled")
        }
        let reason: String =
            switch (error as? URLError)?.code {
            case .timedOut?: "did not answer within \(Int(timeout)) s"
            case .cannotConnectToHost?: "refused the connection"
            case .cannotFindHost?, .dnsLookupFailed?: "cannot be found"
            case .networkConnectionLost?: "closed the connection"
            default: "cannot be reached (\(error.localizedDescription))"
            }
        return ServiceError(
            code: "unavailable", message: "The characters service at \(baseURL) \(reason); try again later")
    }
}
