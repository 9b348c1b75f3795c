import Foundation
import TestScratch
import Testing

/// README.md and docs/*.md as a newcomer follows them: links that lead somewhere, commands that exist.
/// (`scripts/check-docs` runs the blocks marked runnable; this suite checks what can be checked without running.)
@Suite("The docs point at what exists")
struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md, then every docs/*.md, as paths relative to the repository.
    static let documents: [String] = {
        let guides =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path))
            ?? []
        return ["README.md"] + guides.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    static func text(of document: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
    }

    @Test("every relative link in README.md and docs/*.md points at a file, and a heading, that exists", .offThePool)
    func relativeLinksResolve() throws {
        var checked = 0
        for document in Self.documents {
            let markdown = Markdown(try Self.text(of: document))
            for link in markdown.relativeLinks {
                checked += 1
                #expect(
                    Self.problem(with: link.target, in: document) == nil, "\(document):\(link.line): \(link.target)")
            }
        }
        #expect(Self.documents.contains("docs/glossary.md"))
        #expect(checked > 20, "only \(checked) relative links found: is the link pattern still right?")
    }

    @Test("every `microapp COMMAND` in a runnable block is a command `microapp --help` lists", .offThePool)
    func runnableBlocksNameRealCommands() throws {
        let listed = try Self.listedCommands()
        #expect(listed.isSuperset(of: ["run", "solo", "preview", "new", "doctor"]), "\(listed)")
        var named = 0
        for document in Self.documents {
            for block in Markdown(try Self.text(of: document)).runnableBlocks {
                for (offset, line) in block.lines.enumerated() {
                    for command in Markdown.microappCommands(in: line) {
                        named += 1
                        #expect(
                            listed.contains(command),
                            "\(document):\(block.line + 1 + offset): `microapp \(command)` is not a command of microapp --help"
                        )
                    }
                }
            }
        }
        #expect(named >= 10, "only \(named) microapp commands found in runnable blocks")
    }

    @Test("a link to a missing file or heading, and an unknown command, are caught", .offThePool)
    func theCheckerCatchesWhatIsWrong() {
        let markdown = Markdown(
            """
            # Title
            See [the guide](docs/no-such-guide.md), [a heading](#title), [no heading](#nowhere),
            [the web](https://example.com) and `[code](not-a-link.md)`, and [a link that
            wraps](docs/wrapped.md).

            ```sh runnable
            swift run microapp fly --high   # not a command
            .build/debug/microapp routes
            ```
            """)
        #expect(
            markdown.relativeLinks.map(\.target) == ["docs/no-such-guide.md", "#title", "#nowhere", "docs/wrapped.md"])
        #expect(markdown.relativeLinks.map(\.line) == [2, 2, 2, 3])
        #expect(Self.problem(with: "docs/no-such-guide.md", in: "README.md") != nil)
        #expect(Self.problem(with: "docs/glossary.md#zygote", in: "README.md") == nil)
        #expect(Self.problem(with: "docs/glossary.md#no-such-term", in: "README.md") != nil)
        #expect(markdown.anchors.contains("title") && !markdown.anchors.contains("nowhere"))
        #expect(markdown.runnableBlocks.map(\.line) == [6])
        #expect(markdown.runnableBlocks.flatMap { $0.lines.flatMap(Markdown.microappCommands) } == ["fly", "routes"])
    }

    /// Why `target` (a link written in `document`) leads nowhere, or nil when it resolves.
    static func problem(with target: String, in document: String) -> String? {
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let path = parts[0]
        let anchor = parts.count > 1 ? parts[1] : ""
        let folder = root.appendingPathComponent(document).deletingLastPathComponent()
        let file = path.isEmpty ? root.appendingPathComponent(document) : folder.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: file.standardizedFileURL.path) else { return "no such file" }
        guard !anchor.isEmpty, file.pathExtension == "md" else { return nil }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "cannot be read" }
        return Markdown(text).anchors.contains(anchor) ? nil : "no heading with the anchor #\(anchor)"
    }

    /// The commands `microapp --help` lists (`  microapp NAME …` lines), from the binary `swift test` built.
    static func listedCommands() throws -> Set<String> {
        let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let binary = build.appendingPathComponent("microapp")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) was not built")
        // Into a file, not a pipe: a pipe's write end inherited by another test's child would keep EOF away.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("microapp-help-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--help"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        #expect(process.terminationStatus == 0)
        let data = try Data(contentsOf: file)
        let help = String(decoding: data, as: UTF8.self)
        let usage = try Regex(#"^\s+microapp ([a-z][a-z-]*)"#)
        return Set(
            help.split(separator: "\n").compactMap { line in
                line.firstMatch(of: usage).flatMap { $0.output[1].substring.map(String.init) }
            })
    }
}

/// Just enough Markdown for the checks: fenced blocks, links outside code, headings' anchors as GitHub makes them.
struct Markdown {
    struct Link {
        var line: Int
        var target: String
    }

    struct Block {
        /// The line of the opening fence (1-based).
        var line: Int
        var lines: [String]
    }

    private(set) var relativeLinks: [Link] = []
    private(set) var runnableBlocks: [Block] = []
    private(set) var anchors: Set<String> = []

    init(_ text: String) {
        var fence: Block?
        var runnable = false
        var seen: [String: Int] = [:]
        // A paragraph's lines, so that a link whose text wraps onto the next line is still one link.
        var paragraph: (line: Int, lines: [String]) = (0, [])
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated()
        {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if fence == nil, !trimmed.isEmpty, !trimmed.hasPrefix("```"), !line.hasPrefix("#") {
                if paragraph.lines.isEmpty { paragraph.line = index + 1 }
                paragraph.lines.append(line)
                continue
            }
            addLinks(in: paragraph.lines, from: paragraph.line)
            paragraph.lines = []
            if trimmed.hasPrefix("```") {
                if let block = fence {
                    if runnable { runnableBlocks.append(block) }
                    fence = nil
                } else {
                    fence = Block(line: index + 1, lines: [])
                    runnable = trimmed == "```sh runnable" || trimmed == "```sh runnable apart"
                }
            } else if fence != nil {
                fence?.lines.append(line)
            } else if line.hasPrefix("#") {
                let anchor = Self.anchor(of: String(line.drop { $0 == "#" }))
                let count = seen[anchor, default: 0]
                anchors.insert(count == 0 ? anchor : "\(anchor)-\(count)")
                seen[anchor] = count + 1
                addLinks(in: [line], from: index + 1)
            }
        }
        addLinks(in: paragraph.lines, from: paragraph.line)
    }

    /// The relative links of `lines` (outside code spans), each with the line it starts on.
    private mutating func addLinks(in lines: [String], from first: Int) {
        guard !lines.isEmpty else { return }
        // Code spans become as many newlines as they held, so the lines after them keep their numbers.
        let prose = lines.joined(separator: "\n").replacing(/`[^`]*`/) { span in
            String(repeating: "\n", count: span.output.filter { $0 == "\n" }.count)
        }
        for match in prose.matches(of: /\[[^\]]*\]\(([^)\s]+)\)/) {
            let target = String(match.output.1)
            guard !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
            let line = first + prose[..<match.range.lowerBound].filter { $0 == "\n" }.count
            relativeLinks.append(Link(line: line, target: target))
        }
    }

    /// GitHub's anchor of a heading: lowercased, punctuation dropped, spaces as hyphens.
    static func anchor(of heading: String) -> String {
        let words = heading.trimmingCharacters(in: .whitespaces).lowercased()
        return String(
            words.compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            })
    }

    /// The command word after each `microapp` a shell line runs (`swift run microapp new`, `.build/debug/microapp
    /// routes`); options (`microapp --ui json`) name none. Comments are not commands.
    static func microappCommands(in line: String) -> [String] {
        let code = line.firstRange(of: " #").map { String(line[..<$0.lowerBound]) } ?? line
        return code.matches(of: /(?:^|[\s\/|;&(])microapp\s+([a-z][a-z-]*)/).map { String($0.output.1) }
    }
}
