import Foundation
import MicroappCore
import MicroappRelease

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Writes `seen` as the record of channels.
    public func save(_ seen: SeenVersions) -> Problem? {
        write(seen.encoded(), to: folders.seenVersions, folderMode: 0o700)
    }

    private func read<Value: Decodable>(_ type: Value.Type, at path: String, or empty: Value) -> Result<
        Value, Problem
    > {
        guard let data = FileManager.default.contents(atPath: path) else {
            return FileFacts.exists(path) ? .failure(unreadable(path)) : .success(empty)
        }
        guard let value = try? CanonicalJSON.decode(type, from: data) else { return .failure(unreadable(path)) }
        return .success(value)
    }

    private func unreadable(_ path: String) -> Problem {
        Problem(
            code: "bad-release-file", subject: path, reason: "it cannot be read as the JSON the host writes there",
            fix: "restore it from a backup, or remove it and trust your keys again")
    }

    private func write(_ data: Data, to path: String, folderMode: mode_t) -> Problem? {
        do {
            try ReleaseKeyFile.makeFolder((path as NSString).deletingLastPathComponent, mode: folderMode)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return (error as? ProblemDescribing)?.problem
                ?? Problem(
                    code: "bad-release-file", subject: path, reason: "it could not be written (\(error))",
                    fix: "check the permissions of its folder")
        }
    }
}
