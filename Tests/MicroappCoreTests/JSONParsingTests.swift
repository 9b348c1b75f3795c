import Foundation
import MicroappCore
import TestScratch
import Testing

@Suite("JSON read by hand over bytes: the values JSONDecoder reads, and where a file is not JSON")
struct JSONParsingTests {
    static func parse(_ text: String) throws(JSONValue.ParseError) -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    static func failure(_ text: String) -> JSONValue.ParseError? { failure(bytes: Array(text.utf8)) }

    static func failure(bytes: [UInt8]) -> JSONValue.ParseError? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("every kind of value reads as JSONDecoder reads it, escapes and surrogate pairs included", .offThePool)
    func agreesWithJSONDecoder() throws {
        let documents = [
            #"{"version":1,"libraries":{"libAuth.so":{"feature":"auth","sha256":"ab","grants":["a","b"]}}}"#,
            " [ 0, -12, 3.5, -0.25e2, 1E+3, true, false, null, \"\" ]\n",
            #"{"path":"a\/b","quote":"\"\\","controls":"\b\f\n\r\t","u":"\u00e9\u4e2d\ud83d\ude00","raw":"é中😀"}"#,
            #"{"nested":{"deeper":[[],[{}],{"x":[null]}]},"big":9223372036854775807,"small":-9223372036854775808}"#,
            "\u{FEFF}{\"marked\": \"a byte-order mark before it\"}",
            "\"a lone string\"", "42", "{\r\n\t\"spaced\" :\t[ 1 ,2 ] \r\n}", "[1.0, 1e2, -0, 9223372036854775808]",
            "{\"trailing\": [1, 2, ], \"commas\": {\"a\": 1,},}",
        ]
        for document in documents {
            let parsed = try Self.parse(document)
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(document.utf8))
            #expect(parsed == decoded, "\(document)")
        }
        #expect(
            try Self.parse(#"{"u":"\ud83d\ude00\u0041"}"#) == .object(["u": .string("😀A")]),
            "a pair is one character")
    }

    @Test(
        "what is not JSON is named with its line and column", .offThePool,
        arguments: [
            ("", 1, 1, "expected a value, found the end"),
            ("{\"a\": 1,\n  \"b\" 2}", 2, 7, "expected ':' after a key, found '2'"),
            ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}' in an object, found '\"'"),
            ("[1,,2]", 1, 4, "expected a value, found ','"),
            ("[,]", 1, 2, "expected a value, found ','"),
            ("{\"a\": 1,,}", 1, 9, "expected a key in quotes, found ','"),
            ("{,}", 1, 2, "expected a key in quotes, found ','"),
            ("{'a': 1}", 1, 2, "expected a key in quotes, found '''"),
            ("[tru]", 1, 2, "expected a value, found 't'"),
            ("[01]", 1, 2, "a number with a leading zero"),
            ("[1.]", 1, 4, "expected a digit after '.', found ']'"),
            ("[-]", 1, 3, "expected a digit, found ']'"),
            ("[1e]", 1, 4, "expected a digit in the exponent, found ']'"),
            ("[1e999]", 1, 2, "the number 1e999 is out of range"),
            ("\"open", 1, 6, "a string not closed"),
            ("\"a\tb\"", 1, 3, "a control character (byte 9) in a string; write it escaped"),
            ("\"\\x\"", 1, 3, "an unknown escape: 'x' after '\\'"),
            ("\"\\u12g4\"", 1, 6, "expected four hex digits after \\u, found 'g'"),
            ("\"\\ud83d\"", 1, 8, "a lone surrogate \\ud83d without its second half"),
            ("\"\\ude00\"", 1, 8, "a lone surrogate \\ude00 without its first half"),
            ("\"\\ud83d\\u0041\"", 1, 14, "a surrogate pair's second half is not one"),
            ("{\"a\": 1}\n{}", 2, 1, "more after the value"),
            ("{\"k\": 1, \"k\": 2}", 1, 10, "the key \"k\" appears twice in one object"),
            ("\u{1}", 1, 1, "expected a value, found byte 1"),
        ])
    func namedFailures(text: String, line: Int, column: Int, reason: String) {
        let error = Self.failure(text)
        #expect(
            [error?.line, error?.column] == [line, column] && error?.reason == reason,
            "\(text): \(String(describing: error))")
        #expect(error?.description == "line \(line), column \(column): \(reason)")
    }

    @Test("bytes that are not UTF-8 inside a string, and nesting past 64, are refused", .offThePool)
    func invalidBytesAndDepth() {
        let invalid: [UInt8] = Array("[\"ok\", \"a".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        #expect(Self.failure(bytes: invalid)?.description == "line 1, column 9: a string that is not UTF-8")
        #expect(throws: Never.self) {
            try Self.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
        }
        #expect(
            Self.failure(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))?.reason
                == "nested more than 64 deep")
    }

    @Test("every cut of a document fails with a reason instead of reading a part of it", .offThePool)
    func everyPrefixRefused() throws {
        let document = #"{"libraries":{"libA.so":{"feature":"a","grants":["x"],"n":-1.5e3}},"version":1}"#
        let bytes = Array(document.utf8)
        for end in 0..<bytes.count {
            #expect(throws: JSONValue.ParseError.self, "\(end)") { try JSONValue(parsing: Array(bytes[..<end])) }
        }
    }
}
