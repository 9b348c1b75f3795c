import Foundation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

@Suite("Plugins that someone else could have replaced are refused")
struct IntegrityTests {
    /// A copy of the real Auth library in a fresh folder of its own, with the given modes.
    static func copyOfAuth(fileMode: mode_t, folderMode: mode_t) throws -> (file: String, folder: String) {
        let folder = "\(Paths.fixtures)/integrity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = "\(folder)/libAuth.so"
        try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/libAuth.so", toPath: file)
        chmod(file, fileMode)
        chmod(folder, folderMode)
        return (file, folder)
    }

    @Test("a library writable by others is refused with the chmod that fixes it", .offThePool)
    func worldWritableFile() throws {
        let copy = try Self.copyOfAuth(fileMode: 0o666, folderMode: 0o755)
        let problem = try #require(PluginSet.load([copy.file]).problems.first)
        #expect(problem.code == .unsafePermissions)
        #expect(problem.subject == copy.file)
        #expect(problem.reason.contains("writable by everyone"))
        #expect(problem.fix == "run `chmod go-w \(copy.file)`")
    }

    @Test("a library in a folder its group can write is refused, naming the folder", .offThePool)
    func groupWritableFolder() throws {
        let copy = try Self.copyOfAuth(fileMode: 0o644, folderMode: 0o775)
        let problem = try #require(PluginSet.load([copy.file]).problems.first)
        #expect(problem.code == .unsafePermissions)
        #expect(problem.reason.contains("folder \(copy.folder) is writable by its group"))
        #expect(problem.fix.contains("chmod go-w \(copy.folder)"))
    }

    @Test("the same library with safe modes loads", .offThePool)
    func safeModesLoad() throws {
        let copy = try Self.copyOfAuth(fileMode: 0o644, folderMode: 0o755)
        let report = PluginSet.load([copy.file])
        #expect(report.problems.isEmpty)
        #expect(report.images.map(\.manifest.id) == ["auth"])
    }
}
