import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// Like ssh with its keys: a file that someone other than this user (or root) could have written is not believed.
/// Plugin libraries that fail it are refused; the probe cache and `plugins.lock` that fail it are ignored.
package enum FileTrust {
    /// How a file or folder could have been written by someone else.
    package struct Weakness {
        /// The file or folder at fault.
        let path: String
        /// `its folder /x is writable by its group`.
        let reason: String
        /// True when another user owns it (else it is writable by group or others).
        let isForeignOwner: Bool
        /// `run \`chmod go-w /x\`` for a writable one; nil for another owner, whose fix depends on the file.
        var modeFix: String? { isForeignOwner ? nil : "run `chmod go-w \(path)`" }
    }

    /// The weakness of one file or folder whose status is `info`; a folder with the sticky bit (`/tmp`) protects
    /// the files in it from other users, so its write bits do not count.
    package static func weakness(_ path: String, _ info: stat, what: String) -> Weakness? {
        let sticky = what == "folder" && info.st_mode & S_ISVTX != 0
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 && !sticky {
            let whom = info.st_mode & S_IWOTH != 0 ? "everyone" : "its group"
            return Weakness(path: path, reason: "its \(what) \(path) is writable by \(whom)", isForeignOwner: false)
        }
        if info.st_uid != geteuid() && info.st_uid != 0 {
            return Weakness(
                path: path, reason: "its \(what) \(path) belongs to another user (uid \(info.st_uid))",
                isForeignOwner: true)
        }
        return nil
    }

    /// The weakness of the file at `path`, else of its folder; nil when neither has one or the file is missing.
    package static func weakness(ofFileAndFolder path: String) -> Weakness? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        if let weakness = weakness(path, info, what: "file") { return weakness }
        let folder = PathParts.folder(of: path)
        var folderInfo = stat()
        guard stat(folder.isEmpty ? "." : folder, &folderInfo) == 0 else { return nil }
        return weakness(folder.isEmpty ? "." : folder, folderInfo, what: "folder")
    }

    /// Why the file at `path` (`what`: "the probe cache", say), which this user's tools write, is ignored: the
    /// weakness in a few words and the warning to show; nil when it is believed or missing. `ownerFix` says what to
    /// do when another user owns it.
    package static func distrust(
        _ path: String, what: String, ignoring consequence: String, ownerFix: String
    ) -> (weakness: String, warning: Problem)? {
        guard let weakness = weakness(ofFileAndFolder: path) else { return nil }
        let warning = Problem(
            .untrustedFile, subject: path,
            reason: "\(what) is ignored: \(weakness.reason), so someone else could have edited it; \(consequence)",
            fix: weakness.modeFix ?? ownerFix)
        return (weakness.reason, warning)
    }
}
