import Foundation
import MicroappCore
import TestScratch
import Testing

/// The one catalogue of codes (`Problem+Codes.swift`) against the package's sources and docs/troubleshooting.md.
@Suite("One catalogue of problems")
struct ProblemCatalogueTests {
    /// One entry of the catalogue as its source says it.
    struct Entry: Equatable {
        var name: String
        var code: String
        var meaning: String
    }

    /// The catalogue's entries, read from its source: each `static let` with the one-line doc comment above it.
    static func catalogue() throws -> [Entry] {
        let file = LayerTests.root.appendingPathComponent("Sources/MicroappCore/Problem+Codes.swift")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        var entries: [Entry] = []
        for (index, line) in lines.enumerated() where line.contains("public static let ") {
            let words = line.split(separator: " ")
            let name = String(words[3].dropLast())
            let code = String(line.split(separator: "\"")[1])
            let above = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            let meaning = above.hasPrefix("/// ") ? String(above.dropFirst(4)) : ""
            entries.append(Entry(name: name, code: code, meaning: meaning))
        }
        return entries
    }

    /// The codes docs/troubleshooting.md documents: each code in backquotes in the first column of a table row.
    static func documented() throws -> Set<String> {
        let file = LayerTests.root.appendingPathComponent("docs/troubleshooting.md")
        let rows = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("|") }
        return Set(
            rows.flatMap { row in
                row.split(separator: "|", omittingEmptySubsequences: false)[1].split(separator: "`").enumerated()
                    .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
            .filter { $0.first?.isLowercase == true && $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } })
    }

    @Test("every code is named once, with a one-line meaning, and spelled once", .offThePool)
    func everyCodeIsNamedOnceWithItsMeaning() throws {
        let entries = try Self.catalogue()
        #expect(entries.count > 100, "the catalogue was not found under \(LayerTests.root.path)")
        #expect(entries.filter { $0.meaning.isEmpty || !$0.meaning.hasSuffix(".") }.map(\.name) == [])
        #expect(Set(entries.map(\.code)).count == entries.count, "a code is named twice")
        #expect(Set(entries.map(\.name)).count == entries.count, "a name is used twice")
        #expect(Problem.Code.usage.rawValue == "usage" && Problem.Code.releaseSDK.rawValue == "release-sdk")
    }

    @Test(
        "docs/troubleshooting.md documents every code of the catalogue, and no code the catalogue does not name",
        .offThePool)
    func troubleshootingMatchesTheCatalogue() throws {
        let codes = Set(try Self.catalogue().map(\.code))
        let documented = try Self.documented()
        #expect(codes.subtracting(documented).sorted() == [], "add a row to docs/troubleshooting.md")
        #expect(documented.subtracting(codes).sorted() == [], "documented but not in Problem+Codes.swift")
    }

    @Test("no module spells a code as a string: each is a constant of the catalogue", .offThePool)
    func noCodeIsALiteral() throws {
        // The spellings a literal code takes: an argument, a comparison, a raw value. A feature's `ServiceError` code
        // is the plugin boundary's own and not a problem's.
        let spellings = ["code: \"", "Problem(\"", ".code == \"", ".code != \"", "Code(rawValue: \""]
        var found: [String] = []
        for folder in LayerTests.shipped where !folder.hasPrefix("hosts/microapp/Services") {
            for file in try LayerTests.sources(folder) where file.name != "Problem+Codes.swift" {
                let code = file.code.replacingOccurrences(
                    of: #"ServiceError\(\s*code: ""#, with: "", options: .regularExpression)
                found += spellings.filter(code.contains).map { "\(folder)/\(file.name): \($0)" }
            }
        }
        #expect(found == [])
    }
}
