import MicroappDevLoop
import TestScratch
import Testing

/// The feature list between Package.swift's markers, read over the file's bytes.
@Suite("The feature list in Package.swift")
struct FeatureListTests {
    /// A manifest with text around the list that is not ASCII, a list indented with tabs and spaces, a comment after an
    /// entry, lines that are not entries, and Windows line ends in `crlf`.
    static func manifest(crlf: Bool = false) -> String {
        let lines = [
            "// swift-tools-version: 6.0 — « café » 🚀",
            "let features: [String] = [",
            "    \t// microapp: features begin   ",
            "    \"Auth\",",
            "\t\"Characters\", // the list",
            "    \"\",",
            "    \"Unclosed,",
            "    let other = \"Search\"",
            "  \"Zebra\"",
            "    // microapp: features end",
            "]",
            "let après = \"Settings\",",
        ]
        return lines.joined(separator: crlf ? "\r\n" : "\n")
    }

    @Test(
        "the names between the markers, in the file's order; other lines and text outside are not names", .offThePool)
    func readsTheList() throws {
        for crlf in [false, true] {
            let list = try #require(FeatureList(manifest: Self.manifest(crlf: crlf)))
            #expect(list.declared == ["Auth", "Characters", "Zebra"], "crlf: \(crlf)")
        }
        #expect(FeatureList(manifest: "let x = 1\n// microapp: features begin\n\"Auth\",\n") == nil)
        #expect(FeatureList(manifest: "// microapp: features end\n// microapp: features begin\n") == nil)
    }

    @Test("adding and removing a name edit that line only", .offThePool)
    func addsAndRemoves() throws {
        let list = try #require(FeatureList(manifest: Self.manifest()))
        let added = try #require(FeatureList(manifest: list.adding("Maps")))
        #expect(added.declared == ["Auth", "Characters", "Maps", "Zebra"], "in its sorted place")
        let removed = try #require(FeatureList(manifest: list.removing("Characters")))
        #expect(removed.declared == ["Auth", "Zebra"])
        #expect(list.removing("Characters").contains("🚀") && list.removing("Characters").contains("après"))
    }
}
