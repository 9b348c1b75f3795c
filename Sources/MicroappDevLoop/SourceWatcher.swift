import Foundation
import MicroappCore
import MicroappPlatform
import Synchronization

/// Watches folders (and their subfolders) for files that change, with inotify, or by polling every half second where
/// inotify is not available. Changes come in batches, once the folders were quiet for `debounce` (an editor's save, a
/// linker's output, a `git checkout` each make one batch). The watch waits on the kernel: for an event, the end of a
/// quiet period, the next poll or `stop()`, never on a timer of its own.
public final class SourceWatcher: Sendable {
    private let directories: [String]
    private let debounce: Duration
    private let accept: @Sendable (String) -> Bool
    private let recursive: Bool
    private let polling: Bool
    private let pollInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let stopped = Mutex(false)
    /// What `stop()` wakes the watch with; nil where the kernel gives no eventfd (the watch then looks every 50 ms).
    private let wake = WakeSignal()

    /// Watches `directories` (and their subfolders when `recursive`); only paths for which `accept` is true count
    /// (`*.swift`, `lib*.so`). `polling` skips inotify (for file systems whose changes it does not see, such as some
    /// network and container mounts), comparing the files every `pollInterval`; `prefersPolling(in:)` reads the choice
    /// from `MICROAPP_WATCH=poll`. Quiet periods are measured on `now` (the environment's clock).
    public init(
        directories: [String], recursive: Bool = true, debounce: Duration = .milliseconds(150),
        polling: Bool = false, pollInterval: Duration = .milliseconds(500),
        now: @escaping @Sendable () -> ContinuousClock.Instant, accept: @escaping @Sendable (String) -> Bool
    ) {
        self.now = now
        self.directories = directories
        self.recursive = recursive
        self.debounce = debounce
        self.polling = polling
        self.pollInterval = pollInterval
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

    /// Ends the stream: the watch wakes at once.
    public func stop() {
        stopped.withLock { $0 = true }
        wake?.signal()
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func watch(_ events: FileEvents, _ continuation: AsyncStream<Set<String>>.Continuation) {
        func add(_ folder: String) {
            events.watch(folder)
            if recursive { Self.subfolders(of: folder).forEach(add) }
        }
        directories.forEach(add)
        continuation.yield([])
        var pending: Set<String> = []
        var lastEvent = now()
        // What each path was when it was last reported. A save can make two events far apart: Foundation's atomic
        // write renames its temporary file over the path (IN_MOVED_TO) and closes it only then (IN_CLOSE_WRITE); on
        // a loaded machine the two fall into two batches. The second finds the bytes already reported: not a save.
        var reported: [String: [Int]?] = [:]
        while !isStopped {
            // Wake at an event, at `stop()`, or when the quiet period of pending changes ends.
            var quiet = pending.isEmpty ? nil : max(.zero, debounce - (now() - lastEvent))
            if wake == nil { quiet = min(quiet ?? .milliseconds(50), .milliseconds(50)) }
            for change in events.next(waitingUpTo: quiet, orUntil: wake) {
                if change.isFolder {
                    guard recursive && change.appeared else { continue }
                    add(change.path)
                    // Files made in the new folder before its watch began make no event of their own.
                    let inside = FileStamp.stamps(under: [change.path], recursive: true, accept: accept).keys
                    pending.formUnion(inside)
                    if !inside.isEmpty { lastEvent = now() }
                } else if accept(change.path) {
                    pending.insert(change.path)
                    lastEvent = now()
                }
            }
            if !pending.isEmpty && now() - lastEvent >= debounce {
                let stamps = pending.map { ($0, FileStamp.of(path: $0)) }
                let changed = stamps.filter { path, stamp in reported[path].map { $0 != stamp } ?? true }
                for (path, stamp) in changed { reported[path] = stamp }
                if !changed.isEmpty { continuation.yield(Set(changed.map(\.0))) }
                pending = []
            }
        }
    }

    /// The fallback: compares size, mtime and inode of every accepted file every `pollInterval`.
    private func poll(_ continuation: AsyncStream<Set<String>>.Continuation) {
        var known = scan()
        continuation.yield([])
        while !isStopped {
            if let wake { wake.wait(upTo: pollInterval) } else { WakeSignal.pause(pollInterval) }
            let current = scan()
            let changed = Set(current.keys.filter { known[$0] != current[$0] })
                .union(known.keys.filter { current[$0] == nil })
            known = current
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
