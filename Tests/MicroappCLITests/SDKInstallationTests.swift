import Foundation
import Testing

@testable import MicroappTool

@Suite("The SDK's installed folder")
struct SDKInstallationTests {
    @Test(
        "the folder is named by the SDK's own major.minor, not by the entry ABI's; a header without it names none",
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

    @Test("a header without a version names no folder")
    func noVersion() {
        #expect(SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR 1u\n") == nil)
        #expect(
            SDKInstallation.version(inHeader: "#define MICROAPP_ABI_MAJOR x\n#define MICROAPP_ABI_MINOR y\n") == nil)
    }
}

@Suite("Plugin folders")
struct PluginFolderTests {
    @Test("a folder named twice, by another path or through a symlink, is loaded once, in the place first named")
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
}
