import Foundation
import TestScratch
import Testing

/// The pictures of the modules in README.md and docs/developing.md drawn from Package.swift: every module is in them,
/// and they show its dependencies as the manifest declares them.
@Suite("The pictures of the modules are the package's")
struct PictureTests {
    @Test(
        "the README's picture shows every module of Sources/ and hosts/, each drawn above every module it depends on",
        .offThePool)
    func readmePictureIsTheGraph() throws {
        let graph = try PackageGraph(manifest: try Self.text("Package.swift"))
        let picture = try Self.picture(in: try Self.text("README.md"), after: "## The picture")
        #expect(Self.layeringProblems(picture, graph: graph) == [])
    }

    @Test("developing.md's arrows name each module's dependencies: none it lacks, and none left out", .offThePool)
    func developingArrowsAreTheGraph() throws {
        let graph = try PackageGraph(manifest: try Self.text("Package.swift"))
        let guide = try Self.text("docs/developing.md")
        let picture = try Self.picture(in: guide, after: "How the modules depend on each other")
        #expect(Self.arrowProblems(picture, graph: graph) == [])
        let drawn = Set(picture.flatMap { graph.modules(in: $0).compactMap(graph.pictureName) })
        #expect(graph.pictured.subtracting(drawn).sorted() == [], "modules the arrows leave out")
    }

    @Test("a module left out, drawn below what it uses, or an arrow to a module it does not use is caught", .offThePool)
    func mistakesAreCaught() throws {
        let graph = try PackageGraph(
            manifest: """
                .target(name: "Low", path: "Sources/Low"),
                .target(name: "High", dependencies: ["Low", sdk], path: "Sources/High"),
                .target(name: "Other", path: "Sources/Other"),
                .executableTarget(name: "app", dependencies: ["High"], path: "hosts/app/CLI"),
                """)
        let layers = [" hosts/app", " High", " Low", " Other", " MicroappSDK"]
        #expect(Self.layeringProblems(layers, graph: graph) == [])
        #expect(Self.layeringProblems([" hosts/app", " Low", " High", " MicroappSDK"], graph: graph).count == 2)
        #expect(Self.arrowProblems([" hosts/app/CLI ──▶ High", " High ──▶ Low, MicroappSDK"], graph: graph) == [])
        #expect(Self.arrowProblems([" High ──▶ Other, Low, MicroappSDK"], graph: graph).count == 1)
        #expect(Self.arrowProblems([" High ──▶ Low"], graph: graph).count == 1)
        #expect(Self.arrowProblems([" High ──▶ Low, …"], graph: graph) == [])
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The lines of the first fenced block after the line that starts with `marker`.
    static func picture(in markdown: String, after marker: String) throws -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix(marker) }, "no '\(marker)' in the document")
        let open = try #require(lines[start...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        return Array(lines[(open + 1)..<close])
    }

    /// What is wrong with a layered picture: a pictured module it leaves out, a module drawn on a line above one
    /// that depends on it.
    static func layeringProblems(_ picture: [String], graph: PackageGraph) -> [String] {
        var line: [String: Int] = [:]
        for (index, text) in picture.enumerated() {
            for name in graph.pictured(in: text) where line[name] == nil { line[name] = index }
        }
        var problems = graph.pictured.subtracting(line.keys).sorted().map { "\($0) is not in the picture" }
        for (module, uses) in graph.layers.sorted(by: { $0.key < $1.key }) {
            guard let at = line[module] else { continue }
            for used in uses.sorted() where used != module && (line[used] ?? Int.max) <= at {
                problems.append("\(module) uses \(used), drawn on or above it")
            }
        }
        return problems
    }

    /// What is wrong with `Module ──▶ A, B` lines: a name the module does not use (directly or through another), or a
    /// dependency neither named nor reached through a named one (unless the line ends with `…`).
    static func arrowProblems(_ picture: [String], graph: PackageGraph) -> [String] {
        var problems: [String] = []
        // An arrow drawn into a module (`◀──`) says who uses it: only a line's arrows out of its module are checked.
        for text in picture where text.contains("─▶") && !text.contains("◀") {
            let sides = text.components(separatedBy: "─▶")
            guard let module = graph.modules(in: sides[0]).first else { continue }
            // The right side's names, up to the column of comments (three spaces or more after the last name).
            let listed = sides[1].components(separatedBy: "   ").first ?? ""
            let named = Set(graph.modules(in: listed))
            let uses = graph.reach(from: graph.dependencies[module] ?? [])
            for name in named.subtracting(uses).sorted() { problems.append("\(module) does not use \(name)") }
            guard !listed.contains("…") else { continue }
            for name in uses.subtracting(graph.reach(from: named)).sorted() {
                problems.append("\(module) uses \(name), which its arrow does not reach")
            }
        }
        return problems
    }
}

/// The targets of a Package.swift and what each depends on, read from its text: `.target(name: …, dependencies: [ …
/// ], path: …)` and its kin (`sdk` is MicroappSDK). Pictures draw the targets in Sources/ by name, and each folder of
/// hosts/ as one (`hosts/microapp`).
struct PackageGraph {
    /// Each target's folder in the package.
    var paths: [String: String] = ["MicroappSDK": "Sources/MicroappSDK"]
    /// Each target's direct dependencies (targets of the manifest, and MicroappSDK).
    var dependencies: [String: Set<String>] = [:]

    init(manifest: String) throws {
        let kinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("]
        var rest = manifest[...]
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let after = rest[start.upperBound...]
            let end = kinds.compactMap { after.range(of: $0)?.lowerBound }.min() ?? after.endIndex
            let text = String(after[..<end])
            rest = after[end...]
            guard let name = Self.quoted(after: "name: ", in: text), !name.contains("\\(") else { continue }
            paths[name] = Self.quoted(after: "path: ", in: text) ?? ""
            dependencies[name] = Set(Self.uses(in: text))
        }
    }

    /// How a picture draws `target`: its name (Sources/), its host's folder (hosts/), or nil (not drawn).
    func pictureName(_ target: String) -> String? {
        let parts = (paths[target] ?? "").split(separator: "/")
        if parts.first == "Sources" { return target }
        return parts.first == "hosts" && parts.count > 1 ? "hosts/\(parts[1])" : nil
    }

    /// Every name the pictures draw.
    var pictured: Set<String> { Set(paths.keys.compactMap(pictureName)) }

    /// Each drawn module's dependencies, as drawn (a host's folder: what any of its targets uses outside it).
    var layers: [String: Set<String>] {
        var layers: [String: Set<String>] = [:]
        for (target, uses) in dependencies {
            guard let module = pictureName(target) else { continue }
            layers[module, default: []].formUnion(uses.compactMap(pictureName).filter { $0 != module })
        }
        return layers
    }

    /// The targets `line` names, in order: by name, or by folder (`hosts/microapp/CLI`, `Sources/MicroappTool/`).
    func modules(in line: String) -> [String] {
        let byPath = Dictionary(paths.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        return line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "/") }).compactMap { word in
            let word = word.hasSuffix("/") ? String(word.dropLast()) : String(word)
            return paths[word] != nil ? word : byPath[word]
        }
    }

    /// The drawn names on `line`, in order: targets by name, host folders (`hosts/microapp`) by their path.
    func pictured(in line: String) -> [String] {
        let drawn = pictured
        return line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "/") }).map(String.init)
            .filter(drawn.contains)
    }

    /// The targets in `start` and every target they depend on, directly or not.
    func reach(from start: Set<String>) -> Set<String> {
        var seen = start
        var queue = Array(start)
        while let next = queue.popLast() {
            for used in dependencies[next] ?? [] where seen.insert(used).inserted { queue.append(used) }
        }
        return seen
    }

    /// The string literal after `label` in `text`.
    static func quoted(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label + "\"") else { return nil }
        return text[range.upperBound...].prefix { $0 != "\"" }.description
    }

    /// The names in the `dependencies: [ … ]` list of `text` (string literals, `sdk`, `.target(name: …)`).
    static func uses(in text: String) -> [String] {
        guard let open = text.range(of: "dependencies: [") else { return [] }
        var depth = 1
        var end = open.upperBound
        while end < text.endIndex, depth > 0 {
            if text[end] == "[" { depth += 1 } else if text[end] == "]" { depth -= 1 }
            end = text.index(after: end)
        }
        let list = text[open.upperBound..<end]
        var names = list.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        if list.range(of: #"\bsdk\b"#, options: .regularExpression) != nil { names.append("MicroappSDK") }
        return names
    }
}
