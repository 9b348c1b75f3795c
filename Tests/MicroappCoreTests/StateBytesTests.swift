import Foundation
import MicroappCore
import MicroappSDK
import Testing

@Suite("Shared state as bytes: what the host sends an isolated feature and takes back from its owner")
@MainActor
struct StateBytesTests {
    let session = ObservableProperty<Session?>(nil)
    let container = Container()
    let rick = Session(accountID: "1", email: "rick@example.com", name: "Rick")

    init() { container.share(.session(access: .readWrite), session) }

    func grant(_ access: Access) throws -> StateBytes {
        try #require(StateBytes(DependencyKey<Session?>.session(access: access).requirement, in: container))
    }

    @Test("a read grant carries the value as JSON, follows the holder's changes and cannot write")
    func readGrant() throws {
        let grant = try grant(.read)
        #expect(grant.current == Data("null".utf8))
        #expect(!grant.writable)
        var heard: [Data] = []
        let observation = grant.observe { heard.append($0) }
        session.value = rick
        #expect(try JSONDecoder().decode(Session?.self, from: try #require(heard.last)) == rick)
        #expect(!grant.set(Data("null".utf8)))
        #expect(session.value == rick)
        observation.cancel()
    }

    @Test("the owner's write reaches the holder as its own type; a write of another shape changes nothing")
    func ownerWrites() throws {
        let grant = try grant(.readWrite)
        #expect(grant.writable)
        let bytes = try JSONEncoder().encode(rick)
        #expect(grant.set(bytes))
        #expect(session.value == rick)
        #expect(grant.set(Data(#"{"not":"a session"}"#.utf8)))
        #expect(session.value == rick)
    }

    @Test("a key the container does not share gives no grant")
    func missingKey() {
        let requirement = DependencyKey<Session?>.state("elsewhere", access: .read).requirement
        #expect(StateBytes(requirement, in: container) == nil)
    }
}
