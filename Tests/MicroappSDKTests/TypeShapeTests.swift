import Foundation
import MicroappSDK
import TestScratch
import Testing

@Suite("Type shapes: the structure of what crosses the boundary")
struct TypeShapeTests {
    struct Detail: Codable {
        enum Status: String, Codable, CaseIterable { case alive, dead }
        var id: Int
        var name: String
        var status: Status
        var tags: [String]
        var gender: String?
        var homepage: URL
        var seen: Date
    }

    /// Refuses every input but one exact text: the recorder's samples cannot make one.
    struct Picky: Codable {
        var code: String
        init(from decoder: any Decoder) throws {
            code = try decoder.singleValueContainer().decode(String.self)
            guard code == "ok" else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no")) }
        }
    }

    @Test("a struct's shape lists its JSON keys sorted, each scalar by type, optionals and arrays marked", .offThePool)
    func structShape() {
        #expect(
            TypeShape.of(Detail.self).description
                == #"{"gender":String?,"homepage":URL,"id":Int,"name":String,"seen":Date,"status":String,"tags":[String]}"#
        )
    }

    @Test("the SDK's session as shared state is an optional object", .offThePool)
    func sessionShape() {
        #expect(TypeShape.of(Session?.self).description == #"{"accountID":String,"email":String,"name":String}?"#)
    }

    @Test("a service's shape is its request and response", .offThePool)
    func serviceShape() {
        #expect(Service<Nothing, [Int]>.shape.description == "({})->[Int]")
    }

    @Test("a type whose decoding refuses sample input is known by its name", .offThePool)
    func opaqueShape() {
        #expect(TypeShape.of(Picky.self) == .opaque("Picky"))
        #expect(TypeShape.of([Picky].self) == .opaque("Array<Picky>"))
    }

    @Test(
        "the text form reads back to the same shape",
        .offThePool,
        arguments: [TypeShape.of(Detail?.self), .of([Session].self), .of(Picky.self), Service<Session, Nothing>.shape])
    func roundTrip(shape: TypeShape) throws {
        #expect(TypeShape(parsing: shape.description) == shape)
    }

    @Test("keys with quotes and backslashes are escaped, a name's quotes dropped, and both read back", .offThePool)
    func escapedText() throws {
        let shape = TypeShape.object([#"say "hi"\"#: .scalar("String"), "n": .opaque("it's")])
        #expect(shape.description == #"{"n":'its',"say \"hi\"\\":String}"#)
        let read = TypeShape(parsing: shape.description)
        #expect(read == .object([#"say "hi"\"#: .scalar("String"), "n": .opaque("its")]))
    }

    @Test(
        "text that is not a shape is refused", .offThePool,
        arguments: ["", "{", "[Int", "{a:Int}", "Int??x", "(Int)Int", "'x"])
    func malformed(text: String) {
        #expect(TypeShape(parsing: text) == nil)
    }

    @Test("a reader accepts extra keys and missing optional ones, never a missing required key or null", .offThePool)
    func acceptance() throws {
        let reader = try #require(TypeShape(parsing: #"{"a":Int,"b":String?}"#))
        #expect(reader.accepts(try #require(TypeShape(parsing: #"{"a":Int,"c":Bool}"#))))
        #expect(!reader.accepts(try #require(TypeShape(parsing: #"{"b":String}"#))))
        #expect(!reader.accepts(try #require(TypeShape(parsing: #"{"a":String}"#))))
        #expect(!reader.accepts(try #require(TypeShape(parsing: #"{"a":Int}?"#))))
        #expect(TypeShape.optional(reader).accepts(reader))
    }
}
