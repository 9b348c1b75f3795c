import Foundation
import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Feature protocol: frames between the host and an isolated feature's child")
struct FeatureWireTests {
    static let location = Location(
        url: "characters://detail/2", pattern: "characters://detail/{id}", parameters: ["id": "2"])

    static let messages: [FeatureMessage] = [
        .hello(version: FeatureWire.version),
        .start(
            state: ["session": Data(#"{"email":"rick@example.com"}"#.utf8)], writable: ["session"], services: ["search"]
        ),
        .willShow(location), .screen(location), .action(.input(id: "query", text: "Morty"), at: location),
        .stateChanged(key: "session", value: Data("null".utf8)), .restore(Data([1, 2, 3])),
        .welcome(version: 1, manifest: "{}"), .refused("no entry symbol"), .started, .startFailed("boom"),
        .screenUpdate(location, Screen(title: "Morty", content: [.text(Text("Alive"))], state: .loading("…"))),
        .done, .navigate(.push("characters://detail/3")), .navigate(.pop), .stateWrite(key: "session", value: Data()),
        .snapshot(nil), .snapshot(Data("{}".utf8)), .restored(failure: nil), .log("hello"),
        .serviceCall(id: 7, key: "characters.page", request: Data("{}".utf8)),
        .serviceReply(id: 7, response: nil, error: ServiceError(code: "unavailable", message: "down")),
    ]

    static func frame(length: UInt32, _ body: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: length.bigEndian) { Array($0) } + body
    }

    @Test("every message comes back equal from its frame, also when the stream splits frames anywhere", .offThePool)
    func roundTrips() throws {
        let stream = Self.messages.reduce(Data()) { $0 + FeatureWire.encode($1) }
        var reader = FeatureFrameReader()
        var received: [FeatureMessage] = []
        for start in stride(from: 0, to: stream.count, by: 7) {
            reader.append(stream[start..<min(start + 7, stream.count)])
            while let message = try reader.next() { received.append(message) }
        }
        #expect(received == Self.messages)
        #expect(reader.pendingBytes == 0)
    }

    @Test("a length over the frame limit is refused before any of its body arrives", .offThePool)
    func oversizedLength() {
        var reader = FeatureFrameReader()
        reader.append(Self.frame(length: UInt32.max, []))
        #expect(throws: FeatureWireError.self) { try reader.next() }
    }

    @Test("bytes that are not JSON, or JSON that is no known message, are refused", .offThePool)
    func garbageAndUnknownTypes() {
        for body in ["\u{0}\u{1}garbage", #"{"format":{"disk":true}}"#, #"{"done":{}, "log":{"_0":"x"}}"#, "[]"] {
            var reader = FeatureFrameReader()
            reader.append(Self.frame(length: UInt32(body.utf8.count), Array(body.utf8)))
            #expect(throws: FeatureWireError.self, "\(body)") { try reader.next() }
        }
    }

    @Test("a frame that has not fully arrived is no message yet, and its bytes are counted as pending", .offThePool)
    func truncatedFrame() throws {
        let frame = FeatureWire.encode(.log("a line"))
        var reader = FeatureFrameReader()
        reader.append(frame.dropLast(2))
        #expect(try reader.next() == nil)
        #expect(reader.pendingBytes == frame.count - 2)
        reader.append(frame.suffix(2))
        #expect(try reader.next() == .log("a line"))
    }

    @Test("nesting past the limit is refused unparsed", .offThePool)
    func deepNesting() {
        let body =
            String(repeating: "[", count: FeatureWire.maximumDepth + 1)
            + String(repeating: "]", count: FeatureWire.maximumDepth + 1)
        #expect(throws: FeatureWireError.self) { try FeatureWire.decode(body: Array(body.utf8)) }
    }

    @Test("a key longer than the name limit and a log line longer than the line limit are refused", .offThePool)
    func longNamesAndLines() {
        let longKey = FeatureMessage.stateWrite(
            key: String(repeating: "k", count: FeatureWire.maximumName + 1), value: Data())
        let longLine = FeatureMessage.log(String(repeating: "x", count: FeatureWire.maximumLine + 1))
        for message in [longKey, longLine] {
            let frame = FeatureWire.encode(message)
            #expect(throws: FeatureWireError.self) { try FeatureWire.decode(body: Array(frame.dropFirst(4))) }
        }
    }

    @Test("host and child messages are told apart, so a child cannot send what only the host may", .offThePool)
    func directions() {
        #expect(FeatureMessage.start(state: [:], writable: [], services: []).isFromHost)
        #expect(!FeatureMessage.start(state: [:], writable: [], services: []).isFromChild)
        #expect(FeatureMessage.stateWrite(key: "session", value: Data()).isFromChild)
        #expect(!FeatureMessage.stateChanged(key: "session", value: Data()).isFromChild)
        #expect(FeatureMessage.serviceCall(id: 1, key: "k", request: Data()).isFromChild)
    }

    @Test("escape sequences are taken out of a printed line, the text around them stays", .offThePool)
    func escapeSequences() {
        #expect("\u{1B}[31mred\u{1B}[0m and \u{1B}]0;title\u{07}plain\u{1B}c".withoutEscapeSequences == "red and plain")
    }
}
