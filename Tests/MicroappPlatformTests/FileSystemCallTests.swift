import Foundation
import MicroappPlatform
import TestScratch
import Testing

/// The platform's file calls the development loop stands on: inotify changes, an exclusive lock, a replacement in
/// one step.
@Suite("File calls of the development loop")
struct FileSystemCallTests {
    @Test(
        "inotify reports a file written, one renamed in and a folder made, with the folder's path; not before",
        .offThePool)
    func fileEventsReportChanges() throws {
        let folder = Scratch.folder("events").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let events = try #require(FileEvents())
        #expect(events.watch(folder))
        #expect(!events.watch(folder + "/missing"))
        #expect(events.next(waitingUpTo: .zero).isEmpty)
        try Data("a".utf8).write(to: URL(fileURLWithPath: folder + "/A.swift"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: folder + "/.B.swift.tmp"))
        try FileManager.default.moveItem(atPath: folder + "/.B.swift.tmp", toPath: folder + "/B.swift")
        try FileManager.default.createDirectory(atPath: folder + "/Screens", withIntermediateDirectories: false)
        var changes: [FileEvents.Change] = []
        // Every write above happened before this read, so the reports are queued: the loop only drains them.
        for _ in 0..<10 { changes += events.next(waitingUpTo: .milliseconds(100)) }
        #expect(changes.contains(.init(path: folder + "/A.swift", isFolder: false, appeared: false)))
        #expect(changes.contains(.init(path: folder + "/B.swift", isFolder: false, appeared: true)))
        #expect(changes.contains(.init(path: folder + "/Screens", isFolder: true, appeared: true)))
    }

    @Test("a file lock has one holder at a time: a second asker, even in the same process, runs nothing", .offThePool)
    func fileLockIsExclusive() throws {
        let folder = Scratch.folder("lock").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inner = FileLock.withExclusiveLock(folder + "/lock") {
            FileLock.withExclusiveLock(folder + "/lock") { "second holder ran" } ?? "second holder refused"
        }
        #expect(inner == "second holder refused")
        #expect(FileLock.withExclusiveLock(folder + "/lock") { "free again" } == "free again")
        #expect(FileLock.withExclusiveLock(folder + "/missing/lock") { "ran" } == nil)
    }

    @Test(
        "an edit beside a file waits for the lock's holder, runs alone past its patience, never follows a link, and its lock file is its owner's only",
        .offThePool)
    func editingBeside() throws {
        let folder = Scratch.folder("editing").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/record.json"
        #expect(FileLock.editing(beside: file) { "edited" } == "edited")
        let mode = try FileManager.default.attributesOfItem(atPath: file + ".lock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A holder that never lets go (a hung process, another user): the edit goes on once its patience is spent.
        // The holder waits for the lock: a child another test forked while the edit above held it keeps that lock
        // until it closes its inherited descriptors (at a load of 12, long enough that taking it at once failed).
        let started = ContinuousClock.now
        let waited = FileLock.waitingForExclusiveLock(file + ".lock") {
            FileLock.editing(beside: file, patience: .milliseconds(300)) { ContinuousClock.now - started }
        }
        #expect(waited.map { $0 >= .milliseconds(300) } == true)
        // A link where the lock file goes is not followed: the edit runs without a lock, the link's target untouched.
        let linked = folder + "/linked.json"
        try FileManager.default.createSymbolicLink(atPath: linked + ".lock", withDestinationPath: folder + "/target")
        #expect(FileLock.editing(beside: linked) { "alone" } == "alone")
        #expect(!FileManager.default.fileExists(atPath: folder + "/target"))
    }

    @Test("a replacement puts the new file at the path in one step; a failure names rename and the file", .offThePool)
    func replacementRenames() throws {
        let folder = Scratch.folder("replace").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/libA.so"))
        try Data("new".utf8).write(to: URL(fileURLWithPath: folder + "/libA.so.tmp"))
        try FileReplacement.replace(folder + "/libA.so", with: folder + "/libA.so.tmp")
        #expect(FileManager.default.contents(atPath: folder + "/libA.so") == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder + "/libA.so.tmp"))
        #expect(throws: SystemCallError(call: "rename", path: folder + "/libA.so", errno: ENOENT)) {
            try FileReplacement.replace(folder + "/libA.so", with: folder + "/gone.tmp")
        }
    }
}
