import DemoServices
import Foundation

/// A stand-in for the Rick and Morty API (https://rickandmortyapi.com/documentation) under `/api`, answering as
/// the real service does (its server, afuh/rick-and-morty-api, pages 20 at a time): `/character?page=N` and
/// `/character/?name=…` with `info` {count, pages, next, prev} and `results`; `/character/{id}`; a 404
/// `{"error":"There is nothing here"}` for a page past the last or a search with no match, `{"error":"Character
/// not found"}` for an unknown id. Its records: Rick Sanchez (1), Morty Smith (2) and Toxic Rick (361) exactly as
/// the API returns them, and between them one record in the API's shape for each other character of the bundled
/// catalog (3 to 120: their type, gender, URLs and dates are placeholders), so there are 7 pages.
public enum RickAndMortyAPIStub {
    /// The real service's page size.
    public static let pageSize = 20
    /// The base the real service writes into `next` and `prev`, whatever host it was asked on.
    public static let site = "https://rickandmortyapi.com/api"

    /// Rick Sanchez, as `GET /api/character/1` answers (he is in all 51 episodes).
    public static let rick = record(
        id: 1, name: "Rick Sanchez", status: "Alive", species: "Human", type: "", gender: "Male",
        origin: ("Earth (C-137)", "\(site)/location/1"), location: ("Citadel of Ricks", "\(site)/location/3"),
        episodes: Array(1...51), created: "2017-11-04T18:48:46.250Z")

    /// Morty Smith, as `GET /api/character/2` answers: an unknown origin has an empty URL.
    public static let morty = record(
        id: 2, name: "Morty Smith", status: "Alive", species: "Human", type: "", gender: "Male",
        origin: ("unknown", ""), location: ("Citadel of Ricks", "\(site)/location/3"), episodes: Array(1...51),
        created: "2017-11-04T18:50:21.651Z")

    /// Toxic Rick, as the API's documentation shows him on `/character/?page=19`: a type, one episode.
    public static let toxicRick = record(
        id: 361, name: "Toxic Rick", status: "Dead", species: "Humanoid", type: "Rick's Toxic Side", gender: "Male",
        origin: ("Alien Spa", "\(site)/location/64"), location: ("Earth", "\(site)/location/20"), episodes: [27],
        created: "2018-01-10T18:20:41.703Z")

    /// Every record served, in id order: its id, its name, and its JSON as the API writes it.
    public static let records: [(id: Int, name: String, json: String)] =
        [(1, "Rick Sanchez", rick), (2, "Morty Smith", morty)]
        + CharacterCatalog.bundled.dropFirst(2).map { ($0.id, $0.name, filler($0)) }
        + [(361, "Toxic Rick", toxicRick)]

    /// The answer to one request target, as the real service gives it.
    public static func answer(_ target: String) -> LoopbackHTTPServer.Reply {
        let components = URLComponents(string: target)
        let query = Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        switch components?.path ?? "" {
        case "/api/character", "/api/character/":
            return list(page: query["page"].flatMap(Int.init), name: query["name"])
        case let path where path.hasPrefix("/api/character/"):
            guard let id = Int(path.dropFirst("/api/character/".count)) else {
                return .respond(status: 500, body: #"{"error":"Hey! you must provide an id"}"#)
            }
            guard let record = records.first(where: { $0.id == id }) else {
                return .respond(status: 404, body: #"{"error":"Character not found"}"#)
            }
            return .respond(status: 200, body: record.json)
        default:
            return .respond(status: 404, body: #"{"error":"There is nothing here."}"#)
        }
    }

    /// `/character` with its filters: a page of 20 (page 1 when none or not positive), `next` and `prev` with the
    /// name filter kept, 404 past the last page (so a search with no match, which has 0 pages, is a 404 too).
    private static func list(page asked: Int?, name: String?) -> LoopbackHTTPServer.Reply {
        let page = asked.map { $0 > 0 ? $0 : 1 } ?? 1
        let matching = records.filter { record in
            name.map { record.name.range(of: $0, options: .caseInsensitive) != nil } ?? true
        }
        let pages = (matching.count + pageSize - 1) / pageSize
        guard page <= pages else { return .respond(status: 404, body: #"{"error":"There is nothing here"}"#) }
        let filter = name.map { "&name=\($0)" } ?? ""
        let next = page >= pages ? "null" : string("\(site)/character?page=\(page + 1)\(filter)")
        let prev = page < 2 ? "null" : string("\(site)/character?page=\(page - 1)\(filter)")
        let results = matching.dropFirst((page - 1) * pageSize).prefix(pageSize).map(\.json)
        return .respond(
            status: 200,
            body: #"{"info":{"count":\#(matching.count),"pages":\#(pages),"next":\#(next),"prev":\#(prev)},"#
                + #""results":[\#(results.joined(separator: ","))]}"#)
    }

    /// A record in the API's shape for a bundled character: what the catalog knows, placeholders for the rest.
    private static func filler(_ character: CharacterDetail) -> String {
        record(
            id: character.id, name: character.name, status: character.status, species: character.species, type: "",
            gender: "unknown", origin: (character.origin, ""), location: (character.location, ""),
            episodes: Array(1...character.episodeCount), created: "2017-11-04T18:48:46.250Z")
    }

    /// A character as the API writes it: every field, in its order, its URLs on `site`.
    private static func record(
        id: Int, name: String, status: String, species: String, type: String, gender: String,
        origin: (name: String, url: String), location: (name: String, url: String), episodes: [Int], created: String
    ) -> String {
        let episodeURLs = episodes.map { string("\(site)/episode/\($0)") }.joined(separator: ",")
        return #"{"id":\#(id),"name":\#(string(name)),"status":\#(string(status)),"species":\#(string(species)),"#
            + #""type":\#(string(type)),"gender":\#(string(gender)),"#
            + #""origin":{"name":\#(string(origin.name)),"url":\#(string(origin.url))},"#
            + #""location":{"name":\#(string(location.name)),"url":\#(string(location.url))},"#
            + #""image":"\#(site)/character/avatar/\#(id).jpeg","episode":[\#(episodeURLs)],"#
            + #""url":"\#(site)/character/\#(id)","created":\#(string(created))}"#
    }

    /// `text` as a JSON string.
    private static func string(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
