import Foundation
import TestScratch
import Testing

@testable import MicroappTool

@Suite("release without NAME finds the feature of its own package")
struct ReleasePackageTests {
    /// A folder with Package.swift and the given folders under it.
    private static func package(_ folders: [String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("own-package-\(UUID().uuidString)")
        for folder in folders {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("// swift-tools-version: 6.0\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        return root.path
    }

    @Test("a package with Sources/NAME and Sources/NAMEPlugin is NAME's, found from a folder inside it", .offThePool)
    func ownPackage() throws {
        let root = try Self.package(["Sources/Clock", "Sources/ClockPlugin", "Tests/ClockTests"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let found = ReleaseCommand.ownPackage(from: root + "/Sources/ClockPlugin")
        #expect(found?.folder == URL(fileURLWithPath: root).standardizedFileURL.path)
        #expect(found?.feature == "Clock")
    }

    @Test(
        "a package of several features, or of none, names no feature; nor does a folder outside any package",
        .offThePool)
    func notOwnPackage() throws {
        let several = try Self.package(["Sources/Clock", "Sources/ClockPlugin", "Sources/Map", "Sources/MapPlugin"])
        let none = try Self.package(["Sources/Clock", "Plugins/Map/Sources"])
        defer {
            try? FileManager.default.removeItem(atPath: several)
            try? FileManager.default.removeItem(atPath: none)
        }
        #expect(ReleaseCommand.ownPackage(from: several) == nil)
        #expect(ReleaseCommand.ownPackage(from: none) == nil)
        #expect(ReleaseCommand.ownPackage(from: "/") == nil)
    }
}
