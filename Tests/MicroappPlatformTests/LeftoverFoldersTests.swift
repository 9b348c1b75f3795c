import Foundation
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Folders a killed host left behind")
struct LeftoverFoldersTests {
    /// The pid of a process that ran and was reaped: no process has it now (until the kernel reuses it).
    private static func goneProcess() async throws -> pid_t {
        let child = try ChildProcess(["/bin/true"])
        let pid = child.pid
        _ = await BlockingWork.run { child.wait() }
        return pid
    }

    @Test(
        "a folder of a process that is gone is removed with its pinned copies; a live process's, a link and other names stay"
    )
    func onlyDeadProcessesOwnFoldersGo() async throws {
        let directory = Scratch.folder("leftovers").path
        let gone = try await Self.goneProcess()
        let manager = FileManager.default
        let pinned = "\(directory)/microapp-pinned-\(gone)"
        let feature = "\(directory)/microapp-feature-\(gone)-a1B2c3"
        try manager.createDirectory(atPath: pinned, withIntermediateDirectories: false)
        try Data("elf".utf8).write(to: URL(fileURLWithPath: "\(pinned)/microapp-feature-x-libDrop.so"))
        try manager.createDirectory(atPath: "\(feature)/scratch", withIntermediateDirectories: true)
        let live = "\(directory)/microapp-pinned-\(getpid())"
        try manager.createDirectory(atPath: live, withIntermediateDirectories: false)
        // A link named like a leftover must not take what it points to with it.
        let target = "\(directory)/precious"
        try manager.createDirectory(atPath: target, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: "\(target)/file"))
        let link = "\(directory)/microapp-feature-\(gone)-link"
        #expect(symlink(target, link) == 0)
        let unrelated = "\(directory)/microapp-pinned-notapid"
        try manager.createDirectory(atPath: unrelated, withIntermediateDirectories: false)

        let removed = LeftoverFolders.removeStale(in: directory)

        #expect(Set(removed) == [pinned, feature])
        #expect(!manager.fileExists(atPath: pinned) && !manager.fileExists(atPath: feature))
        #expect(manager.fileExists(atPath: live), "a running host's folder was removed")
        #expect(manager.fileExists(atPath: "\(target)/file"), "a link's target was removed")
        #expect((try? manager.destinationOfSymbolicLink(atPath: link)) == target, "the link itself was removed")
        #expect(manager.fileExists(atPath: unrelated))
    }

    @Test("a leftover-looking folder of another user stays")
    func anotherUsersFolderStays() async throws {
        // Only root can give a folder to another user; elsewhere the ownership check is covered by the code path above.
        guard getuid() == 0 else { return }
        let directory = Scratch.folder("leftovers-other").path
        let foreign = "\(directory)/microapp-pinned-\(try await Self.goneProcess())"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        #expect(chown(foreign, 65534, 65534) == 0)
        #expect(LeftoverFolders.removeStale(in: directory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: foreign))
    }
}
