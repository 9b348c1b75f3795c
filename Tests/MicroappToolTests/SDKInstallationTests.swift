import Foundation
import MicroappHost
import TestScratch
import Testing

@testable import MicroappTool

@Suite("The SDK's installed folder")
struct SDKInstallationTests {
    @Test(
        "the folder is named by the SDK's own major.minor, not by the entry ABI's; a header without it names none",
        .offThePool,
        arguments: [
            (
                "#define MICROAPP_ABI_MAJOR 1u\n#define MICROAPP_ABI_MINOR 0u\n"
                    + "#define MICROAPP_SDK_MAJOR 2\n#define MICROAPP_SDK_MINOR (3u)\n", "2.3"
            ),
            ("#define MICROAPP_SDK_MAJOR   1\n#define MICROAPP_SDK_MINOR 12\n", "1.12"),
            ("#define MICROAPP_ABI_MAJOR 1u\n#define MICROAPP_ABI_MINOR 0u\n", nil),
        ] as [(String, String?)])
    func version(header: String, expected: String?) {
        #expect(SDKInstallation.version(inHeader: header) == expected)
    }

    @Test("a header without a version names no folder", .offThePool)
    func noVersion() {
        #expect(SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR 1u\n") == nil)
        #expect(
            SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR x\n#define MICROAPP_ABI_MINOR y\n") == nil)
    }
}

@Suite("Plugin folders")
struct PluginFolderTests {
    @Test(
        "a folder named twice, by another path or through a symlink, is loaded once, in the place first named",
        .offThePool)
    func folderNamedTwiceLoadsOnce() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-folders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let build = root.appendingPathComponent("build/debug")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("debug"), withDestinationURL: build)
        let other = root.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let locations = PluginLocations(executableDirectory: build, repository: nil)
        let named = try locations.directories(adding: [
            root.appendingPathComponent("debug").path, other.path, build.path + "/", other.path + "/../other",
        ])
        #expect(named == [build.path, other.path])
    }

    @Test(
        "an app's own package (no Plugins/ folder, its feature a target in Sources/) keeps the libraries SwiftPM built beside its host; this repository's layout drops only libraries with no folder at all",
        .offThePool)
    func ownHostKeepsItsFeatures() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("own-host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let build = root.appendingPathComponent(".build/debug")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Sources/Hello"), withIntermediateDirectories: true)
        for name in ["libHello.so", "libGone.so"] {
            #expect(FileManager.default.createFile(atPath: build.appendingPathComponent(name).path, contents: Data()))
        }
        let locations = PluginLocations(executableDirectory: build, repository: root)
        let plain = locations.libraries(in: [build.path], environment: .stated())
        #expect(plain.paths.map { ($0 as NSString).lastPathComponent }.sorted() == ["libGone.so", "libHello.so"])
        #expect(plain.leftover == nil, "no Plugins/ folder: not this repository's layout, nothing is a leftover")

        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Plugins"), withIntermediateDirectories: true)
        let laidOut = locations.libraries(in: [build.path], environment: .stated())
        #expect(
            laidOut.paths.map { ($0 as NSString).lastPathComponent } == ["libHello.so"], "its target is in Sources/")
        #expect(laidOut.leftover?.libraries.map(\.why) == ["Plugins/Gone no longer exists"])
    }
}
