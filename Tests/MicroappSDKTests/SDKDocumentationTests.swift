import Foundation
import TestScratch
import Testing

/// Every public declaration of the SDK and of MicroappTesting carries a doc comment: they are what a team outside
/// this repository reads (in the sources and in `scripts/docs`' DocC pages).
@Suite("SDK documentation")
struct SDKDocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let folders = ["Sources/MicroappSDK/Swift", "Sources/MicroappTesting"]

    @Test("every public declaration of the SDK and MicroappTesting has a doc comment", .offThePool)
    func everyPublicDeclarationIsDocumented() throws {
        var undocumented: [String] = []
        var declarations = 0
        for folder in Self.folders {
            let directory = Self.repository.appendingPathComponent(folder)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".swift") }.sorted()
            for file in files {
                let source = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let found = PublicDeclarations(source)
                declarations += found.lines.count
                undocumented += found.undocumented.map { "\(folder)/\(file):\($0.number): \($0.text)" }
            }
        }
        #expect(declarations > 100, "the scan found only \(declarations) public declarations: is it still working?")
        let list = undocumented.joined(separator: "\n")
        #expect(undocumented.isEmpty, "public declarations without a `///` comment (add one line):\n\(list)")
    }

    @Test(
        "the scan finds public members, protocol requirements and enum cases, and accepts doc comments above attributes",
        .offThePool
    )
    func scanSeesWhatIsPublic() {
        let found = PublicDeclarations(
            """
            /// Documented.
            public protocol Documented {
                func requirement()
            }
            public enum Choice {
                /// Documented.
                case one
                case two
            }
            struct Internal {
                public var field: Int
                func helper() { if true { print("{") } }
            }
            /// Documented.
            @MainActor
            public func attributed() {}
            """)
        #expect(found.lines.map(\.number) == [2, 3, 5, 7, 8, 11, 16])
        #expect(
            found.undocumented.map(\.text) == [
                "func requirement()", "public enum Choice {", "case two", "public var field: Int",
            ])
    }
}

/// The public declarations of one Swift source, found line by line: a line that declares with `public` or `open`,
/// a requirement inside a public protocol, a case inside a public enum.
struct PublicDeclarations {
    struct Line: Equatable {
        var number: Int
        var text: String
        var documented: Bool
    }

    private(set) var lines: [Line] = []
    var undocumented: [Line] { lines.filter { !$0.documented } }

    private enum Scope {
        case publicProtocol
        case publicEnum
        case other
    }

    private static let declarationWords = [
        "func", "var", "let", "init", "subscript", "struct", "enum", "class", "protocol", "typealias", "actor",
        "associatedtype", "case", "static", "final", "mutating", "nonisolated", "convenience", "required",
        "indirect", "override",
    ]

    init(_ source: String) {
        let all = source.components(separatedBy: "\n")
        var scopes: [Scope] = []
        for (index, raw) in all.enumerated() {
            let code = Self.withoutStringsAndComments(raw).trimmingCharacters(in: .whitespaces)
            let words = Self.withoutLeadingAttributes(code).split(separator: " ").map(String.init)
            let isPublic = words.first == "public" || words.first == "open"
            let inside = scopes.last
            let declares =
                (isPublic && words.dropFirst().first != "extension" && words.dropFirst().first != "import")
                || (inside == .publicProtocol && Self.declarationWords.contains(words.first ?? ""))
                || (inside == .publicEnum && words.first == "case")
            if declares {
                lines.append(
                    Line(number: index + 1, text: code, documented: Self.hasDocComment(before: index, in: all)))
            }
            let opened = code.filter { $0 == "{" }.count
            let closed = code.filter { $0 == "}" }.count
            if opened > closed {
                let scope: Scope =
                    isPublic && words.contains("protocol")
                    ? .publicProtocol
                    : isPublic && words.contains("enum") ? .publicEnum : .other
                scopes.append(contentsOf: Array(repeating: scope, count: opened - closed))
            } else if closed > opened {
                scopes.removeLast(min(closed - opened, scopes.count))
            }
        }
    }

    /// Whether the lines above `index`, past attribute lines, end in a `///` comment or a `/** … */` block.
    private static func hasDocComment(before index: Int, in lines: [String]) -> Bool {
        var above = index - 1
        while above >= 0 {
            let line = lines[above].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("@") {
                above -= 1
                continue
            }
            return line.hasPrefix("///") || line.hasSuffix("*/")
        }
        return false
    }

    /// `@MainActor public func` → `public func`: attributes written on the declaration's own line.
    private static func withoutLeadingAttributes(_ code: String) -> String {
        var rest = Substring(code)
        while rest.hasPrefix("@") {
            var depth = 0
            var end = rest.endIndex
            for index in rest.indices {
                let character = rest[index]
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if character == " " && depth == 0 {
                    end = index
                    break
                }
            }
            rest = rest[end...].drop { $0 == " " }
        }
        return String(rest)
    }

    /// The line with string literals emptied and a trailing `//` comment removed, so braces in them do not count.
    private static func withoutStringsAndComments(_ line: String) -> String {
        var result = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if character == "\"" && previous != "\\" {
                inString.toggle()
                result.append(character)
            } else if !inString {
                if character == "/" && previous == "/" {
                    result.removeLast()
                    break
                }
                result.append(character)
            }
            previous = character
        }
        return result
    }
}
