import Foundation
import MicroappSDK

/// Where the characters come from: the catalog shipped with the app, or the Rick and Morty API.
public protocol CharactersService: Sendable {
    /// One page, of the source's own size (its `pageCount` says how many there are); `not-found` past the last.
    func page(_ request: PageRequest) async throws(ServiceError) -> CharacterPage
    /// One character in full; `not-found` for an unknown id.
    func detail(_ request: CharacterRequest) async throws(ServiceError) -> CharacterDetail
    /// Characters whose name contains the text, in any case; at most one page of the source's; none is no error.
    func search(_ query: SearchQuery) async throws(ServiceError) -> SearchResults
}

/// The characters shipped with the app, paged and searched in memory.
public struct CharacterCatalog: CharactersService {
    /// Rows per page.
    public static let pageSize = 10
    /// Most results a search answers.
    public static let searchLimit = 20
    /// Every character shipped with the app, in id order.
    public static let bundled: [CharacterDetail] = parse(bundledCharacterRows)

    /// The characters served.
    public let characters: [CharacterDetail]

    /// Serves `characters` (the bundled ones by default).
    public init(characters: [CharacterDetail] = CharacterCatalog.bundled) { self.characters = characters }

    /// How many pages there are (at least one).
    public var pageCount: Int { max(1, (characters.count + Self.pageSize - 1) / Self.pageSize) }

    /// One page of rows.
    public func page(_ request: PageRequest) throws(ServiceError) -> CharacterPage {
        guard (1...pageCount).contains(request.page) else {
            throw ServiceError(code: "not-found", message: "There is no page \(request.page) (1 to \(pageCount))")
        }
        let rows = characters.dropFirst((request.page - 1) * Self.pageSize).prefix(Self.pageSize).map(\.summary)
        return CharacterPage(page: request.page, pageCount: pageCount, characters: Array(rows))
    }

    /// One character in full.
    public func detail(_ request: CharacterRequest) throws(ServiceError) -> CharacterDetail {
        guard let character = characters.first(where: { $0.id == request.id }) else {
            throw ServiceError(code: "not-found", message: "No character with id \(request.id)")
        }
        return character
    }

    /// Case-insensitive substring search on names; blank text finds nothing.
    public func search(_ query: SearchQuery) -> SearchResults {
        let text = query.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return SearchResults(characters: []) }
        let found = characters.lazy.filter { $0.name.range(of: text, options: [.caseInsensitive]) != nil }
        return SearchResults(characters: found.prefix(Self.searchLimit).map(\.summary))
    }

    /// Reads `id|name|status|species|origin|location|episodes` lines; lines that do not fit are skipped (a test
    /// checks every bundled line fits).
    static func parse(_ rows: String) -> [CharacterDetail] {
        rows.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard fields.count == 7, let id = Int(fields[0]), let episodes = Int(fields[6]) else { return nil }
            return CharacterDetail(
                id: id, name: fields[1], status: fields[2], species: fields[3], origin: fields[4],
                location: fields[5], episodeCount: episodes)
        }
    }
}
