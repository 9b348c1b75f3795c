import Foundation
import MicroappDevLoop
import TestScratch
import Testing

/// Which running libraries `--watch` rebuilds from sources: those built in a Microapps repository's `.build`, and those
/// SwiftPM built from a package of its own (`microapp new NAME --package DIR`).
@Suite("Watched sources of a library")
struct FeatureSourcesTests {
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

    @Test(
        "a library in a repository's build folder is rebuilt there from Plugins/<Name>, in that configuration",
        .offThePool)
    func libraryInBuildFolder() throws {
        let root = try Self.repository()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = root + "/.build/x86_64-unknown-linux-gnu/release"
        let watched = try #require(FeatureSources(library: folder + "/libCharacters.so", environment: .process))
        #expect(watched.folder == "Characters")
        #expect(watched.builder.repository == root)
        #expect(watched.builder.buildDirectory == folder)
        #expect(watched.builder.configuration == "release")
    }

    @Test(
        "a library outside a build folder, or with no feature folder of its name, has no sources to watch", .offThePool)
    func otherLibraries() throws {
        let root = try Self.repository()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(FeatureSources(library: root + "/libCharacters.so", environment: .process) == nil)
        #expect(
            FeatureSources(
                library: root + "/.build/x86_64-unknown-linux-gnu/release/libSearch.so", environment: .process) == nil)
        try FileManager.default.removeItem(atPath: root + "/Package.swift")
        #expect(
            FeatureSources(
                library: root + "/.build/x86_64-unknown-linux-gnu/release/libCharacters.so", environment: .process)
                == nil)
    }

    @Test(
        "a library SwiftPM built from a package of its own, with any scratch path, is rebuilt in that package from the folders its build lists",
        .offThePool)
    func libraryOfAPackage() throws {
        let folder = Scratch.folder("outside-package").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Greeter"
        let build = folder + "/scratch/x86_64-unknown-linux-gnu/debug"
        for made in [
            package + "/Sources/Greeter/Views", package + "/Sources/GreeterPlugin", build + "/Greeter.build",
            build + "/GreeterPlugin.build",
        ] {
            try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        }
        _ = FileManager.default.createFile(atPath: package + "/Package.swift", contents: Data())
        // SwiftPM's lists of each module's sources, one quoted path a line.
        try "'\(package)/Sources/Greeter/Feature.swift'\n'\(package)/Sources/Greeter/Views/Home.swift'\n".write(
            toFile: build + "/Greeter.build/sources", atomically: true, encoding: .utf8)
        try "'\(package)/Sources/GreeterPlugin/Entry.swift'\n".write(
            toFile: build + "/GreeterPlugin.build/sources", atomically: true, encoding: .utf8)

        let watched = try #require(FeatureSources(library: build + "/libGreeter.so", environment: .process))
        #expect(watched.folder == "Greeter")
        #expect(watched.builder.repository == package)
        #expect(watched.builder.configuration == "debug")
        #expect(
            watched.builder.folders(of: "Greeter")
                == FeatureFolders(sources: package + "/Sources/Greeter", entry: package + "/Sources/GreeterPlugin"))
        // No lists for a library of that name: nothing to watch.
        #expect(FeatureSources(library: build + "/libOther.so", environment: .process) == nil)
    }

    @Test(
        "a library in a repository's build folder keeps the repository's Plugins/<Name>/Sources and Entry", .offThePool)
    func repositoryFolders() throws {
        let root = try Self.repository()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let watched = try #require(
            FeatureSources(
                library: root + "/.build/x86_64-unknown-linux-gnu/release/libCharacters.so", environment: .process))
        #expect(
            watched.builder.folders(of: "Characters")
                == FeatureFolders(
                    sources: root + "/Plugins/Characters/Sources", entry: root + "/Plugins/Characters/Entry"))
    }
}
