import Foundation
import MicroappDevLoop
import Synchronization
import TestScratch
import Testing

/// The folder watch behind `--watch`, with inotify and with polling.
@Suite("Watching source folders")
struct SourceWatcherTests {
    /// What a watcher reported, collected off the test's tasks.
    private final class Batches: Sendable {
        let received = Mutex<[Set<String>]>([])
        let started = Mutex(false)
    }

    /// A watcher on a new folder, already reporting; stop it when done.
    private static func watching(
        polling: Bool, _ body: (_ folder: String, _ batches: () -> [Set<String>]) async throws -> Void
    ) async throws {
        let folder = Scratch.folder("watch").path
        try FileManager.default.createDirectory(atPath: folder + "/Screens", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let watcher = SourceWatcher(
            directories: [folder], debounce: .milliseconds(100), polling: polling, pollInterval: .milliseconds(50),
            now: { .now }, accept: { $0.hasSuffix(".swift") })
        let batches = Batches()
        let stream = watcher.changes()
        let reader = Task.detached {
            for await batch in stream {
                if batch.isEmpty {
                    batches.started.withLock { $0 = true }
                } else {
                    batches.received.withLock { $0.append(batch) }
                }
            }
        }
        defer {
            watcher.stop()
            reader.cancel()
        }
        try await until { batches.started.withLock { $0 } }
        try await body(folder, { batches.received.withLock { $0 } })
    }

    /// Waits up to 20 s for `condition` (a loaded machine can be slow; a pass is usually milliseconds).
    private static func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test(
        "a save arrives once, with the files saved with it; other files do not count",
        arguments: [false, true])
    func savesArriveInOneBatch(polling: Bool) async throws {
        try await Self.watching(polling: polling) { folder, batches in
            try "let a = 1".write(toFile: folder + "/A.swift", atomically: true, encoding: .utf8)
            try "let b = 1".write(toFile: folder + "/Screens/B.swift", atomically: true, encoding: .utf8)
            try "notes".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
            try await Self.until { !batches().isEmpty }
            // A later save: once its batch is in, whatever the first saves brought has arrived before or with it.
            let marker = folder + "/Z.swift"
            try "let z = 1".write(toFile: marker, atomically: true, encoding: .utf8)
            try await Self.until { batches().contains { $0.contains(marker) } }
            let saved = Set(batches().joined()).subtracting([marker])
            #expect(saved == [folder + "/A.swift", folder + "/Screens/B.swift"])
            // Once each: how the saves fall into batches depends on when the folder went quiet (a loaded machine may
            // pause between two writes longer than the quiet window), so it is not asserted.
            let arrivals = batches().joined().filter { $0 != marker }
            #expect(arrivals.count == Set(arrivals).count, "a save arrived twice: \(batches())")
        }
    }

    @Test(
        "a save that renames its file into place and closes it only later (Foundation's atomic write) arrives once, however long the pause between the two"
    )
    func renameThenCloseIsOneSave() async throws {
        try await Self.watching(polling: false) { folder, batches in
            let temporary = folder + "/.A.swift.partial"
            #expect(FileManager.default.createFile(atPath: temporary, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: temporary))
            try handle.write(contentsOf: Data("let a = 1".utf8))
            #expect(rename(temporary, folder + "/A.swift") == 0)
            try await Self.until { batches().contains { $0.contains(folder + "/A.swift") } }
            // The close comes well after the rename's batch (a loaded machine paused the writer).
            try handle.close()
            let marker = folder + "/Z.swift"
            try "let z = 1".write(toFile: marker, atomically: false, encoding: .utf8)
            try await Self.until { batches().contains { $0.contains(marker) } }
            let arrivals = batches().joined().filter { $0 == folder + "/A.swift" }
            #expect(arrivals.count == 1, "the close of an already reported save came again: \(batches())")
        }
    }

    @Test(
        "a file in a folder made after the watch started is seen, also when it was written before the folder's watch began",
        arguments: [false, true])
    func newFolder(polling: Bool) async throws {
        try await Self.watching(polling: polling) { folder, batches in
            // No pause between the two: the file may be there before the watch sees its folder.
            try FileManager.default.createDirectory(atPath: folder + "/New/Deeper", withIntermediateDirectories: true)
            try "let c = 1".write(toFile: folder + "/New/Deeper/C.swift", atomically: true, encoding: .utf8)
            try await Self.until { batches().contains { $0.contains(folder + "/New/Deeper/C.swift") } }
            try "let d = 1".write(toFile: folder + "/New/D.swift", atomically: true, encoding: .utf8)
            try await Self.until { batches().contains { $0.contains(folder + "/New/D.swift") } }
        }
    }

    @Test("stop ends the stream at once: the watch waits on its events and the stop, not on a timer")
    func stopEndsTheStream() async throws {
        let folder = Scratch.folder("watch-stop").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for polling in [false, true] {
            // A poll an hour apart and no events: only the stop can end the wait.
            let watcher = SourceWatcher(
                directories: [folder], polling: polling, pollInterval: .seconds(3600), now: { .now },
                accept: { _ in true })
            let stream = watcher.changes()
            var batches = stream.makeAsyncIterator()
            #expect(await batches.next() == [])
            watcher.stop()
            #expect(await batches.next() == nil)
        }
    }
}
