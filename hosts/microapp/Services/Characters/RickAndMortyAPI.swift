// The JSON of the Rick and Morty API (https://rickandmortyapi.com/documentation), as far as the demo app reads it,
// and how its records map onto the demo's contracts. Fields the screens do not use (image, url, created, the
// places' urls) are not decoded, so an answer without them still reads.

/// The shapes `GET /character…` answers.
enum RickAndMortyAPI {
    /// `GET /character?page=N` and `GET /character/?name=…`: one page of the service's own size (20 today).
    struct Page: Decodable {
        /// What the service says about the whole answer.
        struct Info: Decodable {
            /// How many characters match, on all pages.
            var count: Int
            /// How many pages there are.
            var pages: Int
            /// The next page's URL; null on the last page.
            var next: String?
            /// The previous page's URL; null on the first page.
            var prev: String?
        }

        var info: Info
        var results: [Character]
    }

    /// `GET /character/{id}`, and each of a page's `results`.
    struct Character: Decodable {
        /// A location as a character refers to it: its name, and its URL (empty when unknown).
        struct Place: Decodable {
            var name: String
        }

        var id: Int
        var name: String
        var status: String
        var species: String
        var type: String?
        var gender: String?
        var origin: Place
        var location: Place
        /// The URL of each episode the character appears in.
        var episode: [String]

        /// The record as the detail screen shows it.
        var detail: CharacterDetail {
            CharacterDetail(
                id: id, name: name, status: status, species: species, origin: origin.name, location: location.name,
                episodeCount: episode.count, gender: gender, type: type)
        }

        /// The record as a list row shows it.
        var summary: CharacterSummary { CharacterSummary(id: id, name: name, status: status, species: species) }
    }

    /// What the service answers with a 404 (`{"error":"There is nothing here"}`, `{"error":"Character not found"}`)
    /// and other refusals.
    struct Refusal: Decodable {
        var error: String
    }
}

extension RickAndMortyAPI.Page {
    /// Page `number` as the list shows it. The page count follows what the service says: `info.pages`, except
    /// that a page with no `next` is the last one and a page with a `next` is not.
    func characterPage(number: Int) -> CharacterPage {
        let pageCount = info.next == nil ? number : max(info.pages, number + 1)
        return CharacterPage(page: number, pageCount: pageCount, characters: results.map(\.summary))
    }
}
