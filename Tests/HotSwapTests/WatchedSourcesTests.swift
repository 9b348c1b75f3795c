import Foundation
import MicroappDevLoop
import TestScratch
import Testing

/// Which running libraries `--watch` rebuilds from sources: those built in a Microapps repository's `.build`.
@Suite("Watched sources of a library")
struct WatchedSourcesTests {
    /// A folder laid out like a repository with `Plugins/Characters/Sources` and a `Package.swift`.
    private static func repository() throws -> String {
        let root = Scratch.folder("repository").path
        try FileManager.default.createDirectory(
            atPath: root + "/Plugins/Characters/Sources", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: root + "/.build/x86_64-unknown-linux-gnu/release", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/Package.swift", contents: Data())
        return root
    }

    @Test("a library in a repository's build folder is rebuilt there from Plugins/<Name>, in that configuration")
    func libraryInBuildFolder() throws {
        let root = try Self.repository()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = root + "/.build/x86_64-unknown-linux-gnu/release"
        let watched = try #require(WatchedSources(library: folder + "/libCharacters.so"))
        #expect(watched.folder == "Characters")
        #expect(watched.rebuilder.repository == root)
        #expect(watched.rebuilder.buildDirectory == folder)
        #expect(watched.rebuilder.configuration == "release")
    }

    @Test("a library outside a build folder, or with no feature folder of its name, has no sources to watch")
    func otherLibraries() throws {
        let root = try Self.repository()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(WatchedSources(library: root + "/libCharacters.so") == nil)
        #expect(WatchedSources(library: root + "/.build/x86_64-unknown-linux-gnu/release/libSearch.so") == nil)
        try FileManager.default.removeItem(atPath: root + "/Package.swift")
        #expect(WatchedSources(library: root + "/.build/x86_64-unknown-linux-gnu/release/libCharacters.so") == nil)
    }
}
