import Foundation
import TestScratch
import Testing

@testable import MicroappDevLoop

/// How a start from the repository decides which features need a rebuild: through a record of each feature's source
/// tree kept in the build folder, which must still see every kind of save.
@Suite("The staleness check at start")
struct StalenessCheckTests {
    /// A repository with `Plugins/Auth/{Sources/Screens,Entry}`, a build folder and a library built after its sources.
    private struct Repository: BuildFolders {
        let repository: URL?
        let executableDirectory: URL
        let configuration = "debug"
        var root: String { repository!.path }
        var nested: String { root + "/Plugins/Auth/Sources/Screens" }
        var library: String { executableDirectory.path + "/libAuth.so" }

        init() throws {
            let root = Scratch.folder("staleness")
            repository = root
            executableDirectory = root.appendingPathComponent(".build/debug")
            for folder in [executableDirectory.path, root.path + "/Plugins/Auth/Sources/Screens"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try FileManager.default.createDirectory(
                atPath: root.path + "/Plugins/Auth/Entry", withIntermediateDirectories: true)
            for file in ["Sources/Auth.swift", "Sources/Screens/SignIn.swift", "Entry/Entry.swift"] {
                try Data("// \(file)\n".utf8).write(to: root.appendingPathComponent("Plugins/Auth/" + file))
            }
            try Data().write(to: URL(fileURLWithPath: library))
            // Everything as it was an hour ago, the library built a minute later.
            for folder in ["Plugins/Auth/Sources/Screens", "Plugins/Auth/Sources", "Plugins/Auth/Entry"] {
                try StalenessCheckTests.age(root.path + "/" + folder, seconds: 3600)
            }
            for file in ["Sources/Auth.swift", "Sources/Screens/SignIn.swift", "Entry/Entry.swift"] {
                try StalenessCheckTests.age(root.path + "/Plugins/Auth/" + file, seconds: 3600)
            }
            try StalenessCheckTests.age(library, seconds: 3540)
        }

        /// The features the check finds stale.
        func stale() -> [String] {
            StalePlugins(locations: self, environment: .process, log: { _ in }).staleFeatures().map(\.name)
        }

        func remove() { try? FileManager.default.removeItem(at: repository!) }
    }

    /// Sets the modification time of `path` to `seconds` ago.
    private static func age(_ path: String, seconds: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -seconds)], ofItemAtPath: path)
    }

    @Test(
        "a start that finds nothing to rebuild keeps the feature's source-tree record in the build folder", .offThePool)
    func recordBesideTheBuild() throws {
        let repository = try Repository()
        defer { repository.remove() }
        #expect(repository.stale().isEmpty)
        let record = try String(
            contentsOfFile: repository.executableDirectory.path + "/libAuth.so.sources", encoding: .utf8)
        #expect(record.contains(repository.nested + "/SignIn.swift"))
        #expect(repository.stale().isEmpty)
    }

    @Test(
        "a file written in place in a nested folder makes its feature stale, though no folder's time moved", .offThePool
    )
    func inPlaceSave() throws {
        let repository = try Repository()
        defer { repository.remove() }
        #expect(repository.stale().isEmpty)
        let folderTime = try FileManager.default.attributesOfItem(atPath: repository.nested)[.modificationDate] as? Date
        let file = try FileHandle(forWritingAtPath: repository.nested + "/SignIn.swift").unwrap()
        try file.write(contentsOf: Data("// edited\n".utf8))
        try file.close()
        #expect(
            try FileManager.default.attributesOfItem(atPath: repository.nested)[.modificationDate] as? Date
                == folderTime)
        #expect(repository.stale() == ["Auth"])
    }

    @Test("a save by rename with an older time (an editor's, a moved file) is seen by its folder's time", .offThePool)
    func saveByRename() throws {
        let repository = try Repository()
        defer { repository.remove() }
        #expect(repository.stale().isEmpty)
        let saved = repository.root + "/SignIn.swift.tmp"
        try Data("// saved elsewhere before the build\n".utf8).write(to: URL(fileURLWithPath: saved))
        try Self.age(saved, seconds: 7200)
        #expect(rename(saved, repository.nested + "/SignIn.swift") == 0)
        #expect(repository.stale() == ["Auth"])
    }

    @Test("a file deleted from a nested folder makes its feature stale", .offThePool)
    func deletion() throws {
        let repository = try Repository()
        defer { repository.remove() }
        #expect(repository.stale().isEmpty)
        try FileManager.default.removeItem(atPath: repository.nested + "/SignIn.swift")
        #expect(repository.stale() == ["Auth"])
    }

    @Test("a file added after the record was made, then built by someone else, is watched from then on", .offThePool)
    func fileAddedBehindTheRecord() throws {
        let repository = try Repository()
        defer { repository.remove() }
        #expect(repository.stale().isEmpty)
        let added = repository.nested + "/Profile.swift"
        try Data("// new\n".utf8).write(to: URL(fileURLWithPath: added))
        try Self.age(added, seconds: 60)
        try Self.age(repository.nested, seconds: 60)
        // A plain `swift build` links the library afresh; the check's record still lacks the new file.
        try Self.age(repository.library, seconds: 30)
        #expect(repository.stale().isEmpty)
        let file = try FileHandle(forWritingAtPath: added).unwrap()
        try file.write(contentsOf: Data("// edited in place\n".utf8))
        try file.close()
        #expect(repository.stale() == ["Auth"])
    }
}

extension Optional {
    /// The value, or a thrown error naming what was missing.
    fileprivate func unwrap() throws -> Wrapped {
        guard let value = self else { throw CocoaError(.fileNoSuchFile) }
        return value
    }
}
