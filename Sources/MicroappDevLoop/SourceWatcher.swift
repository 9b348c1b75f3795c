import Foundation
import MicroappCore
import MicroappPlatform
import Synchronization

/// Watches folders (and their subfolders) for files that change, with inotify, or by polling every half second where
/// inotify is not available. Changes come in batches, once the folders were quiet for `debounce` (an editor's save, a
/// linker's output, a `git checkout` each make one batch).
public final class SourceWatcher: Sendable {
    private let directories: [String]
    private let debounce: Duration
    private let accept: @Sendable (String) -> Bool
    private let recursive: Bool
    private let polling: Bool
    private let stopped = Mutex(false)

    /// Watches `directories` (and their subfolders when `recursive`); only paths for which `accept` is true count
    /// (`*.swift`, `lib*.so`). `polling` skips inotify (for file systems whose changes it does not see, such as some
    /// network and container mounts); `prefersPolling(in:)` reads the choice from `MICROAPP_WATCH=poll`.
    public init(
        directories: [String], recursive: Bool = true, debounce: Duration = .milliseconds(150),
        polling: Bool = false, accept: @escaping @Sendable (String) -> Bool
    ) {
        self.directories = directories
        self.recursive = recursive
        self.debounce = debounce
        self.polling = polling
        self.accept = accept
    }

    /// True when `environment` asks for polling: `MICROAPP_WATCH=poll`.
    public static func prefersPolling(in environment: HostEnvironment) -> Bool {
        environment["MICROAPP_WATCH"] == "poll"
    }

    /// The changed paths, one set per quiet period; ends after `stop()`. The first set is empty: it says the watch
    /// has started, so a change from then on is seen.
    public func changes() -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream<Set<String>>.makeStream()
        Thread.detachNewThread { [self] in
            if !polling, let events = FileEvents() {
                watch(events, continuation)
            } else {
                poll(continuation)
            }
            continuation.finish()
        }
        return stream
    }

    /// Ends the stream within about 100 ms.
    public func stop() { stopped.withLock { $0 = true } }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func watch(_ events: FileEvents, _ continuation: AsyncStream<Set<String>>.Continuation) {
        func add(_ folder: String) {
            events.watch(folder)
            if recursive { Self.subfolders(of: folder).forEach(add) }
        }
        directories.forEach(add)
        continuation.yield([])
        var pending: Set<String> = []
        var lastEvent = ContinuousClock.now
        // What each path was when it was last reported. A save can make two events far apart: Foundation's atomic
        // write renames its temporary file over the path (IN_MOVED_TO) and closes it only then (IN_CLOSE_WRITE); on
        // a loaded machine the two fall into two batches. The second finds the bytes already reported: not a save.
        var reported: [String: [Int]?] = [:]
        while !isStopped {
            // Wake when the quiet period of pending changes ends, else every 50 ms to see whether to stop.
            let quiet = pending.isEmpty ? .milliseconds(50) : debounce - (ContinuousClock.now - lastEvent)
            for change in events.next(waitingUpTo: Self.pollTimeout(quiet)) {
                if change.isFolder {
                    if recursive && change.appeared { add(change.path) }
                } else if accept(change.path) {
                    pending.insert(change.path)
                    lastEvent = .now
                }
            }
            if !pending.isEmpty && ContinuousClock.now - lastEvent >= debounce {
                let stamps = pending.map { ($0, FileStamp.of(path: $0)) }
                let changed = stamps.filter { path, stamp in reported[path].map { $0 != stamp } ?? true }
                for (path, stamp) in changed { reported[path] = stamp }
                if !changed.isEmpty { continuation.yield(Set(changed.map(\.0))) }
                pending = []
            }
        }
    }

    /// `duration` in whole milliseconds for `poll`, between 1 and 50.
    private static func pollTimeout(_ duration: Duration) -> Int32 {
        Int32(max(1, min(50, duration.wholeMilliseconds)))
    }

    /// The fallback: compares size, mtime and inode of every accepted file twice a second.
    private func poll(_ continuation: AsyncStream<Set<String>>.Continuation) {
        var known = scan()
        continuation.yield([])
        while !isStopped {
            Thread.sleep(forTimeInterval: 0.5)
            let now = scan()
            let changed = Set(now.keys.filter { known[$0] != now[$0] }).union(known.keys.filter { now[$0] == nil })
            known = now
            if !changed.isEmpty { continuation.yield(changed) }
        }
    }

    private func scan() -> [String: [Int]] {
        FileStamp.stamps(under: directories, recursive: recursive, accept: accept)
    }

    private static func subfolders(of folder: String) -> [String] {
        (Files.names(in: folder)).compactMap { name in
            guard !name.hasPrefix(".") else { return nil }
            let path = (folder as NSString).appendingPathComponent(name)
            return Files.isDirectory(path)
                ? path : nil
        }
    }
}
