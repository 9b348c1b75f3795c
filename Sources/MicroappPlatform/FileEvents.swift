import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Changes in watched folders as the kernel reports them (inotify): the system half of a source watcher. Use it from
/// one thread; the descriptor closes with the value.
package final class FileEvents {
    /// One change seen in a watched folder.
    package struct Change: Sendable, Equatable {
        /// The path of the file or folder that changed.
        package var path: String
        /// True when it is a folder.
        package var isFolder: Bool
        /// True when it appeared (created or moved in), false when it was written, deleted or moved away.
        package var appeared: Bool

        /// A change of `path`.
        package init(path: String, isFolder: Bool, appeared: Bool) {
            self.path = path
            self.isFolder = isFolder
            self.appeared = appeared
        }
    }

    private let descriptor: Int32
    private var folders: [Int32: String] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// A new set of watches, nil where the kernel offers no inotify (or the user's limit of instances is reached).
    package init?() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Starts watching `folder` itself (not its subfolders) for files written, created, deleted and moved; false
    /// when it cannot be watched (gone, unreadable, or the user's watch limit reached).
    @discardableResult
    package func watch(_ folder: String) -> Bool {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        let watch = inotify_add_watch(descriptor, folder, mask)
        guard watch >= 0 else { return false }
        folders[watch] = folder
        return true
    }

    /// The changes reported until now, waiting up to `timeout` (nil: for ever) for the first, or until `wake` is
    /// signalled; empty when none came.
    package func next(waitingUpTo timeout: Duration?, orUntil wake: WakeSignal? = nil) -> [Change] {
        var pollers = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wake { pollers.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)) }
        _ = try? SystemCall.run("poll") { poll(&pollers, nfds_t(pollers.count), WakeSignal.milliseconds(timeout)) }
        if let wake, pollers[1].revents != 0 { _ = wake.take() }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        return buffer.withUnsafeBytes { bytes in
            var changes: [Change] = []
            var offset = 0
            // Each record: watch (4), mask (4), cookie (4), name length (4), then the name padded with zeros.
            while offset + 16 <= count {
                let watch = bytes.load(fromByteOffset: offset, as: Int32.self)
                let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                let name = String(
                    decoding: bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                guard let folder = folders[watch], !name.isEmpty else { continue }
                changes.append(
                    Change(
                        path: (folder as NSString).appendingPathComponent(name),
                        isFolder: mask & UInt32(IN_ISDIR) != 0,
                        appeared: mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0))
            }
            return changes
        }
    }
}
