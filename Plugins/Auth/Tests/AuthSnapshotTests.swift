import Auth
import Foundation
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Hot swap of Auth")
struct AuthSnapshotTests {
    @Test("a snapshot keeps the typed email but never the password")
    func snapshotKeepsTypedEmail() throws {
        let before = try AuthFixture(open: "auth://sign-in")
        try before.harness.type("rick@example.com", into: "email")
        try before.harness.type("portal-gun", into: "password")
        let snapshot = try #require(before.harness.root.snapshot())
        #expect(!String(decoding: snapshot, as: UTF8.self).contains("portal-gun"))

        let after = try AuthFixture(open: "auth://sign-in", restoring: snapshot)
        #expect(after.harness.field("email")?.text == "rick@example.com")
        #expect(after.harness.field("password")?.text == "")
    }

    @Test("a snapshot keeps the name and email typed into the sign-up form")
    func snapshotKeepsSignUpDraft() throws {
        let before = try AuthFixture(open: "auth://sign-up")
        try before.harness.type("Squanchy", into: "name")
        try before.harness.type("sq@example.com", into: "email")
        let snapshot = try #require(before.harness.root.snapshot())
        let after = try AuthFixture(open: "auth://sign-up", restoring: snapshot)
        #expect(after.harness.field("name")?.text == "Squanchy")
        #expect(after.harness.field("email")?.text == "sq@example.com")
    }

    @Test("a snapshot from a version with fewer fields restores what it has")
    func partialSnapshotRestores() throws {
        let after = try AuthFixture(
            open: "auth://sign-up", restoring: Data(#"{"signUp":{"email":"sq@example.com"}}"#.utf8))
        #expect(after.harness.field("email")?.text == "sq@example.com")
        #expect(after.harness.field("name")?.text == "")
    }

    @Test("bytes that are not a snapshot are refused, so the host starts fresh")
    func garbageIsRefused() {
        #expect(throws: (any Error).self) {
            _ = try AuthFixture(open: "auth://sign-in", restoring: Data("not json".utf8))
        }
    }
}
