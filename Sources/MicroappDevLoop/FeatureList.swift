import Foundation
import MicroappCore
import MicroappPlatform

/// The features a repository's Package.swift declares: one `"Name",` a line between the marker comments
/// `// microapp: features begin` and `// microapp: features end`. SwiftPM caches its evaluation of Package.swift by
/// the file's contents, so a manifest whose targets came from a listing of `Plugins/` went stale when a folder was
/// added or removed; a declared list changes the file's contents with every feature added (`microapp new`) or
/// removed (`microapp remove`), and SwiftPM evaluates it again by itself.
package struct FeatureList: Sendable, Equatable {
    /// The comment the list starts after.
    package static let beginMarker = "// microapp: features begin"
    /// The comment the list ends before.
    package static let endMarker = "// microapp: features end"
    /// The test-only variable naming the only features of the repository a host sees (`Auth,Characters`): its
    /// list, its folders in Plugins/ and the libraries of its build folder. `swift test` sets it for every process it
    /// starts, so that the host's tests never depend on the features a person added; it can only make a host see
    /// fewer features.
    package static let testVariable = "MICROAPP_TEST_FEATURES"

    /// The only feature names a host sees, when `environment` sets `MICROAPP_TEST_FEATURES` (read here and nowhere
    /// else).
    package static func testFeatures(in environment: HostEnvironment) -> Set<String>? {
        guard let value = environment.variables[testVariable] else { return nil }
        return Set(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// True when the host sees the feature `name` (always, unless `environment`'s `MICROAPP_TEST_FEATURES` leaves it
    /// out).
    package static func isVisible(_ name: String, in environment: HostEnvironment) -> Bool {
        testFeatures(in: environment)?.contains(name) ?? true
    }

    /// Every declared name, in the order of the file: what `new` and `remove` edit.
    package let declared: [String]
    /// The declared names the host sees (those `MICROAPP_TEST_FEATURES` names, when it is set): what it builds.
    package func names(in environment: HostEnvironment) -> [String] {
        declared.filter { Self.isVisible($0, in: environment) }
    }
    /// The manifest's text, as read.
    package let manifest: String

    /// The list in `manifest`; nil when it has no markers (a Package.swift not laid out as this repository's).
    package init?(manifest: String) {
        // Split and trimmed over its UTF-8 bytes: Foundation's `components(separatedBy:)` and then String's own
        // split, both Character by Character, over a 20 KB Package.swift were most of a start's staleness check
        // (perf: 1.8 ms of CPU a start for the three reads of the list).
        let lines = manifest.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let range = Self.listRange(in: lines) else { return nil }
        self.manifest = manifest
        declared = lines[range].compactMap(Self.entry)
    }

    /// The list in `repository`'s Package.swift; nil when it cannot be read or has no markers.
    package static func read(repository: URL) -> FeatureList? {
        guard let text = Files.text(manifestURL(in: repository).path) else { return nil }
        return FeatureList(manifest: text)
    }

    /// `repository`'s Package.swift.
    package static func manifestURL(in repository: URL) -> URL { repository.appendingPathComponent("Package.swift") }

    /// The manifest with `name` added to the list: in its sorted place when the list is sorted, else at its end.
    package func adding(_ name: String) -> String {
        var lines = manifest.components(separatedBy: "\n")
        guard let range = Self.listRange(in: lines.map(\.utf8)) else { return manifest }
        let entries = range.compactMap { index in Self.entry(lines[index].utf8).map { (index, $0) } }
        let indent = entries.first.map { lines[$0.0].prefix { $0 == " " } } ?? "    "
        let sorted = entries.map(\.1) == entries.map(\.1).sorted()
        let position = sorted ? (entries.first { $0.1 > name }?.0 ?? range.upperBound) : range.upperBound
        lines.insert("\(indent)\"\(name)\",", at: position)
        return lines.joined(separator: "\n")
    }

    /// The manifest without `name`'s line.
    package func removing(_ name: String) -> String {
        var lines = manifest.components(separatedBy: "\n")
        guard let range = Self.listRange(in: lines.map(\.utf8)) else { return manifest }
        if let index = range.first(where: { Self.entry(lines[$0].utf8) == name }) { lines.remove(at: index) }
        return lines.joined(separator: "\n")
    }

    /// Where the list disagrees with the folders in `repository`'s Plugins/: a listed feature whose folder (or its
    /// Sources, Entry or Tests) is missing, which stops every SwiftPM build, and a folder the list does not name,
    /// which nothing builds or loads. Each says what, why and the fix.
    package func problems(in repository: URL, environment: HostEnvironment) -> [Problem] {
        let plugins = repository.appendingPathComponent(FeatureFolders.plugins)
        var problems: [Problem] = []
        for name in names(in: environment) {
            let folder = plugins.appendingPathComponent(name)
            let missing = FeatureFolders.parts.filter { !Self.isDirectory(folder.appendingPathComponent($0)) }
            guard !missing.isEmpty else { continue }
            let what =
                Self.isDirectory(folder)
                ? "has no \(missing.joined(separator: ", ")) folder" : "is missing"
            problems.append(
                Problem(
                    code: .featureFolderMissing, subject: "Plugins/\(name)",
                    reason:
                        "Package.swift lists the feature \(name), but its folder \(what): SwiftPM stops every build of the package (invalid custom path 'Plugins/\(name)/\(missing[0])')",
                    fix:
                        "`swift run microapp remove \(name)` takes it out of the list; or restore the folder (`git checkout -- Plugins/\(name)`)"
                ))
        }
        for folder in Self.folders(in: repository)
        where Self.isVisible(folder, in: environment) && !declared.contains(folder) {
            problems.append(
                Problem(
                    code: .featureNotListed, subject: "Plugins/\(folder)",
                    reason:
                        "the folder is not in Package.swift's feature list: SwiftPM does not build it and the app does not load it",
                    fix:
                        "add the line \"\(folder)\", to Package.swift between `\(Self.beginMarker)` and `\(Self.endMarker)`, or delete Plugins/\(folder)"
                ))
        }
        return problems
    }

    /// The features of `repository` the host builds, loads and knows by folder name, sorted: those its list declares
    /// that have a Sources folder; every folder of Plugins/ with one when its Package.swift declares no list. Only
    /// those the host sees (`MICROAPP_TEST_FEATURES`).
    package static func features(in repository: URL, environment: HostEnvironment) -> [String] {
        features(listed: read(repository: repository), in: repository, environment: environment)
    }

    /// `features(in:environment:)` from `list`, the repository's list already read (nil: it has none).
    package static func features(listed list: FeatureList?, in repository: URL, environment: HostEnvironment)
        -> [String]
    {
        let candidates =
            list?.names(in: environment)
            ?? folders(in: repository).filter { isVisible($0, in: environment) }
        return candidates.filter { Files.isDirectory(FeatureFolders(feature: $0, in: repository.path).sources) }
            .sorted()
    }

    /// The folders in `repository`'s Plugins/ (not hidden ones), sorted.
    package static func folders(in repository: URL) -> [String] {
        let plugins = repository.appendingPathComponent(FeatureFolders.plugins)
        let names = Files.names(in: plugins.path)
        return names.filter { !$0.hasPrefix(".") && isDirectory(plugins.appendingPathComponent($0)) }.sorted()
    }

    /// The line indices strictly between the two markers; nil without both, in order.
    private static func listRange<Line: BidirectionalCollection<UInt8>>(in lines: [Line]) -> Range<Int>? {
        guard let begin = lines.firstIndex(where: { trimmed($0).starts(with: beginMarker.utf8) }),
            let end = lines[(begin + 1)...].firstIndex(where: { trimmed($0).starts(with: endMarker.utf8) })
        else { return nil }
        return (begin + 1)..<end
    }

    /// `line`'s bytes without the white space around it (spaces, tabs, a carriage return).
    private static func trimmed<Line: BidirectionalCollection<UInt8>>(_ line: Line) -> Line.SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }
        let start = line.firstIndex { !isSpace($0) } ?? line.endIndex
        let end = line.lastIndex { !isSpace($0) }.map { line.index(after: $0) } ?? start
        return line[start..<max(start, end)]
    }

    /// `Name` for a line `"Name",` (a comment after it allowed); nil for any other line.
    private static func entry<Line: BidirectionalCollection<UInt8>>(_ line: Line) -> String? {
        let text = trimmed(line)
        let quote = UInt8(ascii: "\"")
        guard text.first == quote else { return nil }
        let name = text.dropFirst().prefix { $0 != quote }
        guard !name.isEmpty, name.endIndex != text.endIndex else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    private static func isDirectory(_ url: URL) -> Bool {
        return Files.isDirectory(url.path)
    }
}
