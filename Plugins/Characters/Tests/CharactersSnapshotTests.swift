import Characters
import Foundation
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Hot swap of Characters")
struct CharactersSnapshotTests {
    @Test("a snapshot keeps the loaded pages, so the new version lists them without asking the service")
    func snapshotKeepsPages() async throws {
        let before = try CharactersFixture()
        _ = try await before.listed(10)
        try before.harness.tap("more")
        _ = try await before.listed(20)
        let snapshot = try #require(before.harness.root.snapshot())

        let after = try CharactersFixture(page: .mockUnavailable, restoring: snapshot)
        #expect(after.harness.screen.state == .view)
        #expect(after.harness.list("characters")?.items.count == 20)
        #expect(after.harness.list("characters")?.footer == "page 2 of 3")
        #expect(after.harness.button("more") != nil)
    }

    @Test("a snapshot keeps the characters already shown")
    func snapshotKeepsDetails() async throws {
        let before = try CharactersFixture(open: "characters://detail/4")
        _ = try await before.harness.next { $0.state == .view }
        let snapshot = try #require(before.harness.root.snapshot())

        let after = try CharactersFixture(open: "characters://detail/4", detail: .mockUnavailable, restoring: snapshot)
        #expect(after.harness.screen.title == "Beth Smith")
    }

    @Test("a snapshot without pages restores as nothing loaded")
    func emptySnapshotRestores() async throws {
        let after = try CharactersFixture(restoring: Data("{}".utf8))
        #expect(try await after.listed(10)?.footer == "page 1 of 3")
    }
}
