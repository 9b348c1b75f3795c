import Foundation
import MicroappSDK
import MicroappTesting
import Search
import Testing

@MainActor
@Suite("Hot swap of Search")
struct SearchSnapshotTests {
    @Test("a snapshot keeps the query and its results, so the new version shows them without searching")
    func snapshotKeepsQueryAndResults() async throws {
        let before = try SearchFixture()
        try before.type("smith")
        let listed = try #require(try await before.results(4))
        let snapshot = try #require(before.harness.root.snapshot())

        let after = try SearchFixture(search: .mockUnavailable, restoring: snapshot)
        #expect(after.harness.field("query")?.text == "smith")
        #expect(after.harness.list("results") == listed)
        #expect(after.harness.screen.state == .view)
        #expect(await after.searches.texts.isEmpty)
    }

    @Test("a snapshot taken while a search was pending searches again")
    func pendingSnapshotSearchesAgain() async throws {
        let after = try SearchFixture(restoring: Data(#"{"query":"Beth"}"#.utf8))
        #expect(after.harness.field("query")?.text == "Beth")
        #expect(try await after.results(1)?.items.first?.title == "Beth Smith")
    }

    @Test("bytes that are not a snapshot are refused, so the host starts fresh")
    func garbageIsRefused() {
        #expect(throws: (any Error).self) { _ = try SearchFixture(restoring: Data("not json".utf8)) }
    }
}
