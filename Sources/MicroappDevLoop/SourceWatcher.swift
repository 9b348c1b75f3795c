import Foundation
import MicroappPlatform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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
    /// network and container mounts); `prefersPolling` reads the choice from `MICROAPP_WATCH=poll`.
    public init(
        directories: [String], recursive: Bool = true, debounce: Duration = .milliseconds(150),
        polling: Bool = SourceWatcher.prefersPolling, accept: @escaping @Sendable (String) -> Bool
    ) {
        self.directories = directories
        self.recursive = recursive
        self.debounce = debounce
        self.polling = polling
        self.accept = accept
    }

    /// True when the environment asks for polling: `MICROAPP_WATCH=poll`.
    public static var prefersPolling: Bool { ProcessInfo.processInfo.environment["MICROAPP_WATCH"] == "poll" }

    /// The changed paths, one set per quiet period; ends after `stop()`. The first set is empty: it says the watch
    /// has started, so a change from then on is seen.
    public func changes() -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream<Set<String>>.makeStream()
        Thread.detachNewThread { [self] in
            let descriptor = polling ? -1 : inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor >= 0 {
                watchWithInotify(descriptor, continuation)
                close(descriptor)
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

    private func watchWithInotify(_ descriptor: Int32, _ continuation: AsyncStream<Set<String>>.Continuation) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        var folders: [Int32: String] = [:]
        func add(_ folder: String) {
            let watch = inotify_add_watch(descriptor, folder, mask)
            if watch >= 0 { folders[watch] = folder }
            if recursive { Self.subfolders(of: folder).forEach(add) }
        }
        directories.forEach(add)
        continuation.yield([])
        var pending: Set<String> = []
        var lastEvent = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !isStopped {
            // Wake when the quiet period of pending changes ends, else every 50 ms to see whether to stop.
            let quiet = pending.isEmpty ? .milliseconds(50) : debounce - (ContinuousClock.now - lastEvent)
            _ = Glibc.poll(&poller, 1, Self.pollTimeout(quiet))
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset + 16 <= count {
                        let watch = bytes.load(fromByteOffset: offset, as: Int32.self)
                        let eventMask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                        let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                        let name = String(decoding: nameBytes, as: UTF8.self)
                        offset += 16 + length
                        guard let folder = folders[watch], !name.isEmpty else { continue }
                        let path = (folder as NSString).appendingPathComponent(name)
                        if eventMask & UInt32(IN_ISDIR) != 0 {
                            if recursive && eventMask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { add(path) }
                        } else if accept(path) {
                            pending.insert(path)
                            lastEvent = .now
                        }
                    }
                }
            }
            if !pending.isEmpty && ContinuousClock.now - lastEvent >= debounce {
                continuation.yield(pending)
                pending = []
            }
        }
    }

    /// `duration` in whole milliseconds for `poll`, between 1 and 50.
    private static func pollTimeout(_ duration: Duration) -> Int32 {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(1, min(50, milliseconds)))
    }

    /// The fallback: compares size, mtime and inode of every accepted file twice a second.
    private func poll(_ continuation: AsyncStream<Set<String>>.Continuation) {
        var known = scan()
        continuation.yield([])
        while !isStopped {
            usleep(500_000)
            let now = scan()
            let changed = Set(now.keys.filter { known[$0] != now[$0] }).union(known.keys.filter { now[$0] == nil })
            known = now
            if !changed.isEmpty { continuation.yield(changed) }
        }
    }

    private func scan() -> [String: [Int]] {
        var files: [String: [Int]] = [:]
        func visit(_ folder: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let path = (folder as NSString).appendingPathComponent(name)
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    if recursive && !name.hasPrefix(".") { visit(path) }
                } else if accept(path) {
                    files[path] = FileStamp.of(info)
                }
            }
        }
        directories.forEach(visit)
        return files
    }

    private static func subfolders(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { name in
            guard !name.hasPrefix(".") else { return nil }
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                ? path : nil
        }
    }
}
