import Foundation
import MicroappCore
import MicroappDigest
import MicroappLoading
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The versions of features a plugin folder keeps beside the running ones, and the one step that makes a kept
/// version the running one. The loader reads only the folder's top (`lib*.so`), never the hidden `.versions`:
/// ```
/// <plugins>/lib<F>.so                           the running version of each feature
/// <plugins>/plugins.lock                        pins each running library's SHA-256 (when the folder is locked)
/// <plugins>/.versions/update.lock               held by an update while it switches a library; loaders hold it shared
/// <plugins>/.versions/<feature>/<version>/      lib<F>.so, installed.json; from a channel also manifest.json,
///                                               release.json and release.json.sig as published
/// <plugins>/.versions/<feature>/bad.json        versions never installed again
/// ```
public struct PluginVersions: Sendable {
    /// The plugin folder.
    public let plugins: String

    /// The versions kept in `plugins`.
    public init(plugins: String) { self.plugins = plugins }

    /// The hidden folder of kept versions.
    public var root: String { plugins + "/.versions" }

    /// The folder of `feature`'s kept `version`.
    public func folder(_ feature: String, _ version: Int) -> String { root + "/\(feature)/\(version)" }

    /// The kept library of `record`.
    public func library(of record: InstalledVersion) -> String {
        folder(record.feature, record.version) + "/" + record.library.path
    }

    /// The features with kept versions.
    public func features() -> [String] { Files.names(in: root).filter { Files.isDirectory(root + "/" + $0) } }

    /// `feature`'s kept versions, oldest first (folders without a readable record are left out).
    public func kept(_ feature: String) -> [InstalledVersion] {
        Files.names(in: root + "/" + feature).compactMap(Int.init).sorted().compactMap { version in
            Files.contents(folder(feature, version) + "/installed.json").flatMap {
                try? CanonicalJSON.decode(InstalledVersion.self, from: $0)
            }
        }
    }

    /// The versions of `feature` marked bad (none when there is no file, or it cannot be read: for a listing; a
    /// decision uses `marks(of:)`).
    public func bad(_ feature: String) -> BadVersions { (try? marks(of: feature).get()) ?? BadVersions() }

    /// The versions of `feature` marked bad: none when there is no file; a problem when it is there and cannot be
    /// read — a damaged record must not bring a version marked bad back as if it had none.
    public func marks(of feature: String) -> Result<BadVersions, Problem> {
        let path = root + "/\(feature)/bad.json"
        guard Files.exists(path) else { return .success(BadVersions()) }
        guard let bytes = Files.contents(path), let marks = try? CanonicalJSON.decode(BadVersions.self, from: bytes)
        else {
            return .failure(
                Problem(
                    code: .badVersionsDamaged, subject: path,
                    reason: "it cannot be read as \(feature)'s versions marked bad (truncated or edited), so none "
                        + "of its versions is installed or rolled back to",
                    fix: "restore the file from a backup; or, knowing which versions were bad, remove it and mark "
                        + "each again with `microapp rollback \(feature) --to`"))
        }
        return .success(marks)
    }

    /// Writes `marks` as `feature`'s bad versions.
    public func save(_ marks: BadVersions, of feature: String) -> Problem? {
        write([("bad.json", marks.encoded())], into: root + "/" + feature)
    }

    /// One `lib*.so` at the folder's top: its SHA-256 and the kept version whose library it is (nil for a library
    /// put there by hand, or one that no longer matches what was installed).
    public struct Running: Sendable, Equatable {
        /// The library's path.
        public var path: String
        /// Its SHA-256.
        public var sha256: String
        /// The kept version it is.
        public var version: InstalledVersion?
    }

    /// The libraries at the folder's top, each matched to the kept version with its file name and bytes.
    public func running() -> [Running] {
        let records = features().flatMap(kept)
        return PluginSet.discover(in: [plugins]).compactMap { path in
            guard let bytes = Files.contents(path) else { return nil }
            let sha256 = SHA256.hex(of: bytes)
            let name = (path as NSString).lastPathComponent
            let version = records.last { $0.library.path == name && $0.library.sha256 == sha256 }
            return Running(path: path, sha256: sha256, version: version)
        }
    }

    /// Keeps `record` with its `files` (name → bytes; the library among them) as a new version folder: written under
    /// a temporary name, then renamed, so a version folder is whole or absent. A folder that exists is left alone.
    public func keep(_ record: InstalledVersion, files: [(String, Data)]) -> Problem? {
        let final = folder(record.feature, record.version)
        if Files.exists(final + "/installed.json") { return nil }
        let partial = root + "/\(record.feature)/.\(record.version).partial-\(getpid())"
        try? Files.remove(partial)
        if let problem = write(files + [("installed.json", record.encoded())], into: partial) { return problem }
        try? Files.remove(final)
        do throws(SystemCallError) {
            try FileReplacement.replace(final, with: partial)
        } catch {
            try? Files.remove(partial)
            return error.problem
        }
        return nil
    }

    /// Makes the kept `record` the running version: its library is copied beside the running one and renamed over
    /// it in one step, and the folder's lock (when it has one) pins it. Order, under the folder's update lock (which
    /// loaders hold shared while they read the libraries and the lock): the lock first accepts both the old and the
    /// new bytes (`installing`), then the rename, then the lock pins the new bytes alone. A reader never finds a
    /// library the lock does not pin, and an update stopped at any point leaves a folder that loads. Blocks.
    public func activate(_ record: InstalledVersion) -> Problem? {
        let name = record.library.path
        let source = library(of: record)
        guard let bytes = Files.contents(source), FileEntry(path: name, bytes: bytes) == record.library else {
            return Problem(
                code: .keptVersionDamaged, subject: source,
                reason: "its bytes are not the ones installed as \(record.feature) \(record.version)",
                fix: "remove \(folder(record.feature, record.version)) and install the version again from its channel")
        }
        let target = plugins + "/" + name
        let staged = plugins + "/." + name + ".installing"
        if let problem = Files.writeDurably(bytes, to: staged, mode: 0o755) { return problem }
        let outcome = FileLock.waitingForExclusiveLock(PluginLock.updateLock(plugins)) { () -> Problem? in
            do {
                let lock = try PluginLock.load(in: plugins)
                if var lock {
                    let entry = lock.libraries[name]
                    // A channel's release is pinned because a trusted key signed its bytes, not because anyone read
                    // its code: it runs in a sandboxed child unless the entry already says where (`lock --isolation`).
                    let isolation = entry?.isolation ?? (record.channel == nil ? nil : .process)
                    lock.libraries[name] = PluginLock.Entry(
                        feature: entry?.feature ?? record.feature, sha256: entry?.sha256 ?? record.library.sha256,
                        isolation: isolation, grants: entry?.grants, installing: record.library.sha256)
                    try lock.write(in: plugins)
                    try FileReplacement.replace(target, with: staged)
                    lock.libraries[name]?.sha256 = record.library.sha256
                    lock.libraries[name]?.installing = nil
                    try lock.write(in: plugins)
                } else {
                    try FileReplacement.replace(target, with: staged)
                }
                return nil
            } catch let error as ProblemDescribing {
                return error.problem
            } catch {
                return Problem(
                    code: .updateWrite, subject: plugins,
                    reason: "\(PluginLock.fileName) could not be written (\(error))",
                    fix: "check that the plugin folder is writable, then update again")
            }
        }
        unlink(staged)
        return outcome
            ?? Problem(
                code: .updateWrite, subject: PluginLock.updateLock(plugins), reason: "the update lock cannot be opened",
                fix: "check that the plugin folder is writable, then update again")
    }

    /// Goes back by hand: makes `feature`'s kept version `wanted` (else the newest kept one older than the running
    /// one and not marked bad) the running one, as an update would (`activate`), and marks the version it left bad,
    /// so that the next update does not bring it straight back (a later version is installed as usual). A version
    /// named with `wanted` loses its own mark: the person chose it. `reason` is the mark's (a canary says what the
    /// version did). A version signed only by a key `trust` no longer holds is never made running again
    /// (`distrust(of:under:)`): passed over when none is named, refused when named. Answers the version left and the
    /// one running now.
    public func rollback(
        _ feature: String, to wanted: Int?, reason: String = "left by `microapp rollback`", trust: TrustList, now: Date
    ) -> Result<
        (left: InstalledVersion, running: InstalledVersion), Problem
    > {
        let kept = kept(feature)
        guard let current = running().compactMap(\.version).first(where: { $0.feature == feature }) else {
            return .failure(
                Problem(
                    code: .noRollback, subject: feature,
                    reason:
                        "the library of \(feature) in \(plugins) is not a version kept in .versions (put there by hand, or changed since)",
                    fix: "nothing to go back to: versions are kept from the first `microapp update` that replaces one"))
        }
        let marks: BadVersions
        switch self.marks(of: feature) {
        case .success(let read): marks = read
        case .failure(let problem): return .failure(problem)
        }
        let target =
            wanted.map { version in kept.first { $0.version == version } }
            ?? kept.last {
                $0.version < current.version && marks.mark(of: $0.version) == nil
                    && distrust(of: $0, under: trust) == nil
            }
        guard let target, target.version != current.version else {
            let versions = kept.map { String($0.version) }.joined(separator: ", ")
            return .failure(
                Problem(
                    code: .noRollback, subject: "\(feature) \(wanted.map(String.init) ?? "")",
                    reason: wanted == nil
                        ? "no version older than \(current.version) is kept, unmarked (kept: \(versions))"
                        : "that version is not kept here, or is the one running (kept: \(versions))",
                    fix: "name a kept version with --to VERSION; `microapp versions \(feature)` lists them"))
        }
        if let problem = distrust(of: target, under: trust) { return .failure(problem) }
        if let problem = activate(target) { return .failure(problem) }
        var marked = marks.marking(current.version, reason: reason, now: now)
        if wanted != nil { marked = marked.clearing(target.version) }
        if let problem = save(marked, of: feature) { return .failure(problem) }
        return .success((current, target))
    }

    /// Removes `feature`'s kept versions beyond the newest `count` older than `running` (never `running` or newer).
    public func prune(_ feature: String, keeping count: Int, running: Int) {
        let older = kept(feature).map(\.version).filter { $0 < running }.sorted(by: >)
        for version in older.dropFirst(count) { try? Files.remove(folder(feature, version)) }
    }

    /// Writes each (name, bytes) into `folder` (made when missing), each durably.
    private func write(_ files: [(String, Data)], into folder: String) -> Problem? {
        do {
            try Files.makeDirectory(folder)
        } catch {
            return Problem(
                code: .updateWrite, subject: folder, reason: "it cannot be made (\(error))",
                fix: "check that the plugin folder is writable, then update again")
        }
        for (name, bytes) in files {
            // Written beside, then renamed over: a crash or a full disk leaves the old file or the new one whole,
            // never a truncated one (a truncated bad.json once read as "nothing marked bad").
            let path = folder + "/" + name
            let written = folder + "/.writing-" + name
            if let problem = Files.writeDurably(bytes, to: written, mode: PluginFileName.isPlugin(name) ? 0o755 : 0o644)
            {
                return problem
            }
            if rename(written, path) != 0 {
                let code = errno
                unlink(written)
                return SystemCallError(call: "rename", path: path, errno: code).problem
            }
        }
        return nil
    }
}
