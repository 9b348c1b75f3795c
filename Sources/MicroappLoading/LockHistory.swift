import Foundation
import MicroappCore
import MicroappPlatform

/// The plugin folders that have had a `plugins.lock`, so that a lock deleted later is noticed: without a record, a
/// folder whose lock is gone looks like one that never had one, and every library in it loads unchecked.
///
/// It is a tripwire, not a guarantee: it catches a lock deleted by mistake, by a tool that cleans the folder, or by
/// someone who can write the plugin folder but not this user's state folder. Whoever can write both can delete both.
/// The record is kept per user (`$XDG_STATE_HOME/microapp/locked-folders.json`), by the folder's real path.
public struct LockHistory: Sendable {
    /// Where the record lives.
    public let file: String

    /// The record at `file`; a missing or unreadable record is an empty one.
    public init(file: String) {
        self.file = file
    }

    /// The record in `environment`: `$XDG_STATE_HOME/microapp/locked-folders.json`, or under `~/.local/state` (under
    /// the temporary folder when there is no home).
    public init(environment: HostEnvironment) {
        file = (environment.folder(.state) ?? environment.temporaryFolder) + "/microapp/locked-folders.json"
    }

    /// The folders recorded (real paths): the record's JSON list read by hand (`JSONValue(parsing:)`: every start
    /// reads it, and JSONDecoder would cost it a scan of the loaded images' conformances); what is not a string is
    /// skipped, so one bad entry does not forget the others.
    public var folders: Set<String> {
        guard let bytes = Files.contents(file), case .array(let items) = try? JSONValue(parsing: [UInt8](bytes)) else {
            return []
        }
        return Set(items.compactMap { if case .string(let folder) = $0 { folder } else { nil } })
    }

    /// True when `folder` has had a lock.
    public func contains(_ folder: String) -> Bool { folders.contains(Self.key(folder)) }

    /// Remembers that `folder` has a lock (written atomically; nothing is written when it is known already), and
    /// forgets the folders that no longer exist. Throws when the record cannot be written.
    public func record(_ folder: String) throws {
        guard !contains(folder) else { return }
        try changing { $0.insert(Self.key(folder)).inserted }
    }

    /// Forgets that `folder` had a lock (its lock was removed on purpose), and the folders that no longer exist;
    /// answers whether `folder` was recorded. Throws when the record cannot be written.
    @discardableResult
    public func forget(_ folder: String) throws -> Bool {
        var removed = false
        try changing { known in
            removed = known.remove(Self.key(folder)) != nil
            return removed || known.contains(where: { !Files.exists($0) })
        }
        return removed
    }

    /// Reads the record, lets `change` edit it (answering whether it changed) and writes it then: under a file lock
    /// beside it, so two hosts recording at once each keep the other's folder.
    private func changing(_ change: (inout Set<String>) -> Bool) throws {
        try Files.makeDirectory((file as NSString).deletingLastPathComponent)
        func edit() -> Result<Void, any Error> {
            var known = folders
            guard change(&known) else { return .success(()) }
            return Result { try write(known) }
        }
        try FileLock.editing(beside: file, edit).get()
    }

    /// Writes `known`, less the folders that no longer exist (a deleted folder has no lock to miss), atomically.
    private func write(_ known: Set<String>) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let kept = known.filter { Files.exists($0) }.sorted()
        try Files.replace(file, with: encoder.encode(kept))
    }

    /// Why `folder`, which has no lock now, should have one; nil when it never had one.
    public func problem(withUnlocked folder: String) -> Problem? {
        guard contains(folder) else { return nil }
        return Problem(
            .lockMissing, subject: (folder as NSString).appendingPathComponent(PluginLock.fileName),
            reason: "the folder had a \(PluginLock.fileName) before and has none now, so its libraries load unchecked",
            fix:
                "restore the lock, or lock the folder again with `microapp lock \(folder)`; if you removed it on purpose, run `microapp lock \(folder) --forget`"
        )
    }

    /// A folder's real path (symbolic links resolved), so one folder is one entry however it is named.
    private static func key(_ folder: String) -> String {
        URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
