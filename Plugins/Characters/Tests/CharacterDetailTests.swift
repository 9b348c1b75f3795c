import Characters
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("A character's detail")
struct CharacterDetailTests {
    @Test("shows progress, then status, species, origin, location and episodes under the name")
    func showsFields() async throws {
        let characters = try CharactersFixture(open: "characters://detail/1")
        #expect(characters.harness.screen.state == .loading("Loading character…"))
        let screen = try await characters.harness.next { $0.state == .view }
        #expect(screen.title == "Rick Sanchez")
        #expect(
            screen.texts == [
                "Status: Alive", "Species: Human", "Origin: Earth (C-137)", "Location: Citadel of Ricks",
                "Episodes: 51",
            ])
    }

    @Test("a source that knows type and gender (the Rick and Morty API) adds them; an empty type is left out")
    func showsTypeAndGender() async throws {
        let toxic = CharacterDetail(
            id: 361, name: "Toxic Rick", status: "Dead", species: "Humanoid", origin: "Alien Spa", location: "Earth",
            episodeCount: 1, gender: "Male", type: "Rick's Toxic Side")
        let morty = CharacterDetail(
            id: 2, name: "Morty Smith", status: "Alive", species: "Human", origin: "unknown",
            location: "Citadel of Ricks", episodeCount: 51, gender: "Male", type: "")
        let characters = try CharactersFixture(
            open: "characters://detail/361", detail: Service { $0.id == 2 ? morty : toxic })
        let screen = try await characters.harness.next { $0.state == .view }
        #expect(
            screen.texts == [
                "Status: Dead", "Species: Humanoid", "Origin: Alien Spa", "Location: Earth", "Episodes: 1",
                "Type: Rick's Toxic Side", "Gender: Male",
            ])
        characters.harness.open("characters://detail/2")
        #expect(
            try await characters.harness.next { $0.title == "Morty Smith" }.texts.suffix(2) == [
                "Episodes: 51", "Gender: Male",
            ])
    }

    @Test("an unknown id shows an error naming the id")
    func unknownIdShowsError() async throws {
        let characters = try CharactersFixture(open: "characters://detail/999")
        let screen = try await characters.harness.next { $0.state != .loading("Loading character…") }
        guard case .error(let panel) = screen.state else {
            Issue.record("expected the error state, got \(screen.state)")
            return
        }
        #expect(panel.message == "No character with id 999")
    }

    @Test("a character that does not exist offers Back, not a Retry that cannot find it, and Back leaves it")
    func notFoundOffersBack() async throws {
        let characters = try CharactersFixture()
        characters.harness.open("characters://detail/99999")
        let screen = try await characters.harness.next { $0.state != .loading("Loading character…") }
        guard case .error(let panel) = screen.state else {
            Issue.record("expected the error state, got \(screen.state)")
            return
        }
        #expect(panel.actions == [Button(id: "back", title: "Back")])
        try characters.harness.tap("back")
        #expect(characters.harness.location.url == "characters://list")
    }

    @Test("an address whose id is not a number is an error screen with Back, and Back leaves it")
    func badParameterOffersBack() throws {
        let characters = try CharactersFixture()
        characters.harness.open("characters://detail/abc")
        guard case .error(let panel) = characters.harness.screen.state else {
            Issue.record("expected the error state, got \(characters.harness.screen.state)")
            return
        }
        #expect(panel.message.contains("characters://detail/abc"))
        #expect(panel.actions == [Button(id: "back", title: "Back")])
        try characters.harness.tap("back")
        #expect(characters.harness.location.url == "characters://list")
    }

    @Test("a failing service shows an error state whose Retry shows the character")
    func failingDetailRetries() async throws {
        let characters = try CharactersFixture(
            open: "characters://detail/2", detail: .failing(first: 1, with: .unavailable, then: .mock))
        let failed = try await characters.harness.next { $0.state != .loading("Loading character…") }
        #expect(failed.element(id: "retry") != nil)
        try characters.harness.tap("retry")
        #expect(try await characters.harness.next { $0.state == .view }.title == "Morty Smith")
    }

    @Test("going back to a character already seen shows it without loading again")
    func detailIsKept() async throws {
        let characters = try CharactersFixture()
        _ = try await characters.listed(10)
        try characters.harness.select(0, in: "characters")
        _ = try await characters.harness.next { $0.title == "Rick Sanchez" }
        characters.harness.back()
        characters.harness.open("characters://detail/1")
        #expect(characters.harness.screen.title == "Rick Sanchez")
    }
}
