import Foundation
import MicroappCore
import MicroappPlatform

/// The person's trust list and channel record on disk (`ReleaseFolders`), each read whole and written atomically
/// (a new file renamed over the old): a reader never sees half a list.
public struct ReleaseStore: Sendable {
    /// Where the files are.
    public let folders: ReleaseFolders

    /// The store in `folders`.
    public init(folders: ReleaseFolders) { self.folders = folders }

    /// The trusted keys; an empty list when there is no file yet, a problem when the file is not a trust list
    /// (never silently empty: that would look like distrust, or hide a tampered file).
    public func trustList() -> Result<TrustList, Problem> {
        read(TrustList.self, at: folders.trustList, or: TrustList())
    }

    /// Writes `list` as the trust list.
    public func save(_ list: TrustList) -> Problem? { write(list.encoded(), to: folders.trustList, folderMode: 0o700) }

    /// What was seen from channels; an empty record when there is no file yet.
    public func seenVersions() -> Result<SeenVersions, Problem> {
        read(SeenVersions.self, at: folders.seenVersions, or: SeenVersions())
    }

    /// Writes `seen` as the record of channels, keeping the record it replaces (when that one reads) as
    /// `channels.json.previous`: the way back from a damaged record that does not forget what was seen.
    public func save(_ seen: SeenVersions) -> Problem? {
        let path = folders.seenVersions
        if case .success(let current) = seenVersions(), current != SeenVersions() {
            _ = write(current.encoded(), to: Self.previous(path), folderMode: 0o700)
        }
        return write(seen.encoded(), to: path, folderMode: 0o700)
    }

    /// The most a trust list or a channel record may weigh: thousands of keys and channels stay far below it.
    public static let fileCap = 4 << 20

    /// Where the record before the last save of `path` is kept.
    static func previous(_ path: String) -> String { path + ".previous" }

    private func read<Value: Decodable>(_ type: Value.Type, at path: String, or empty: Value) -> Result<
        Value, Problem
    > {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return FileFacts.exists(path) ? .failure(unreadable(path)) : .success(empty)
        }
        defer { try? handle.close() }
        // Read no further than the cap: a file grown past it is not one the host wrote (110 MB cost 3 GB).
        guard let data = try? handle.read(upToCount: Self.fileCap + 1), data.count <= Self.fileCap,
            let value = try? CanonicalJSON.decode(type, from: data)
        else { return .failure(unreadable(path)) }
        return .success(value)
    }

    private func unreadable(_ path: String) -> Problem {
        let seen = path == folders.seenVersions
        return Problem(
            code: .badReleaseFile, subject: path,
            reason: "it cannot be read as the JSON the host writes there (at most \(Self.fileCap) bytes)",
            fix: seen
                ? "put back the record before the last check: `cp \(Self.previous(path)) \(path)` (removing it "
                    + "instead forgets every version seen, and an older index would be taken again)"
                : "restore it from a backup, or remove it and trust your keys again")
    }

    private func write(_ data: Data, to path: String, folderMode: mode_t) -> Problem? {
        do {
            try ReleaseKeyFile.makeFolder((path as NSString).deletingLastPathComponent, mode: folderMode)
            try Files.replace(path, with: data)
            return nil
        } catch {
            return (error as? ProblemDescribing)?.problem
                ?? Problem(
                    code: .badReleaseFile, subject: path, reason: "it could not be written (\(error))",
                    fix: "check the permissions of its folder")
        }
    }
}
