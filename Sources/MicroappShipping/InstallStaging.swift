import CPlatform
import Foundation
import MicroappCore
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// An install being written: a hidden folder beside the prefix (one file system, so putting it in place is a rename),
/// filled file by file, each ELF file's RUNPATH pointed at the install's `lib/`, then swapped in for the prefix in
/// one step. Until then the prefix (an earlier install, which a running app may be using) is untouched.
package struct InstallStaging: Sendable {
    /// The layout being written, under the staging folder.
    package let layout: InstalledLayout
    /// Where it goes.
    package let target: String

    /// A fresh staging folder for an install at `target` (absolute), in the folder above it (made when missing).
    package static func make(for target: String) throws(Problem) -> InstallStaging {
        let parent = (target as NSString).deletingLastPathComponent
        let staging = parent + "/.\((target as NSString).lastPathComponent).installing-\(getpid())"
        do {
            if FileFacts.exists(staging) { try Files.remove(staging) }
            try Files.makeDirectory(parent)
            for folder in [staging + "/bin", staging + "/lib", staging + "/plugins"] {
                try Files.makeDirectory(folder, permissions: 0o755)
            }
        } catch {
            throw Problem(
                code: .installNotWritten, subject: staging,
                reason: "the folder to write the install in cannot be made: \(error.localizedDescription)",
                fix: "choose a prefix in a folder you can write, or make \(parent) writable")
        }
        return InstallStaging(layout: InstalledLayout(prefix: staging), target: target)
    }

    /// Copies the file at `source` (a symbolic link followed) to `relative` under the staging folder (`lib/libX.so`)
    /// and, for an ELF file with a RUNPATH, points that at the install's `lib/`; answers the installed file's entry.
    package func copy(_ source: String, to relative: String) throws(Problem) -> InstallRecord.File {
        let real = URL(fileURLWithPath: source).resolvingSymlinksInPath().path
        let destination = layout.prefix + "/" + relative
        do {
            try FileManager.default.copyItem(atPath: real, toPath: destination)
        } catch {
            throw Problem(
                code: .installNotWritten, subject: destination,
                reason: "\(real) could not be copied: \(error.localizedDescription)",
                fix: "check that \(real) is readable and the prefix's disk has room")
        }
        if case .success(let section) = ELFDynamicSection.read(destination), section.runpath != nil {
            let folder = (relative as NSString).deletingLastPathComponent
            try ELFDynamicSection.rewriteRunpath(of: destination, to: InstalledLayout.runpath(inFolder: folder))
        }
        return InstallRecord.File(path: relative, size: FileFacts.size(of: destination) ?? 0, source: real)
    }

    /// Writes `data` as `relative` under the staging folder with `permissions`; answers its entry.
    package func write(_ data: Data, to relative: String, permissions: Int = 0o644) throws(Problem)
        -> InstallRecord.File
    {
        let destination = layout.prefix + "/" + relative
        guard
            FileManager.default.createFile(
                atPath: destination, contents: data, attributes: [.posixPermissions: permissions])
        else {
            throw Problem(
                code: .installNotWritten, subject: destination, reason: "it could not be written",
                fix: "check that the prefix's disk has room")
        }
        return InstallRecord.File(path: relative, size: data.count, source: "")
    }

    /// Puts the staging folder at the target: renamed there when nothing is, else swapped with what is (an earlier
    /// install or an empty folder, as `InstallTarget.check` allowed) in one step, which is then removed. A process
    /// running the earlier install keeps the files it mapped.
    package func place() throws(Problem) {
        let fix = "check that you may write \((target as NSString).deletingLastPathComponent), then install again"
        do {
            if FileFacts.exists(target) {
                try SystemCall.run("renameat2", path: target) { microapp_exchange_paths(layout.prefix, target) }
                try? Files.remove(layout.prefix)
            } else {
                try FileReplacement.replace(target, with: layout.prefix)
            }
        } catch {
            remove()
            throw Problem(
                code: .installNotPlaced, subject: target, reason: error.problem.reason, fix: fix)
        }
    }

    /// Removes the staging folder (after a failure: the target is left as it was).
    package func remove() { try? Files.remove(layout.prefix) }
}

/// What is at an install's prefix now, and so whether an install may go there.
package enum InstallTarget: Sendable, Equatable {
    /// Nothing: the install makes it.
    case absent
    /// An empty folder.
    case empty
    /// An earlier install (its record), which the new one replaces.
    case earlier(InstallRecord)

    /// What is at `prefix`, or why an install may not go there: a file, or a folder with anything in it that is not
    /// an install (a person's folder is never replaced).
    package static func check(_ prefix: String) -> Result<InstallTarget, Problem> {
        switch FileFacts.kind(of: prefix) {
        case nil: return .success(.absent)
        case .folder:
            if Files.names(in: prefix).isEmpty { return .success(.empty) }
            let layout = InstalledLayout(prefix: prefix)
            if let record = InstallRecord.load(layout.record) { return .success(.earlier(record)) }
            return .failure(
                Problem(
                    code: .installPrefix, subject: prefix,
                    reason: "the folder exists and is not an earlier install (it has no \(InstalledLayout.recordName))",
                    fix: "choose a new or empty folder as --prefix; an install replaces only an earlier install"))
        default:
            return .failure(
                Problem(
                    code: .installPrefix, subject: prefix, reason: "it is a file, not a folder",
                    fix: "choose a new or empty folder as --prefix"))
        }
    }
}

/// The libraries ELF files need beyond themselves, found as the dynamic linker finds them: each `DT_NEEDED` name
/// looked up in the RUNPATH folders of the file that needs it, then in the libraries found so, transitively.
package enum NeededLibraries {
    /// What `files` need: those found in a RUNPATH folder (the SDK beside a build's host, the toolchain's Swift
    /// runtime), by name with the path found, and the names of those no RUNPATH holds, left to the system's linker
    /// (`libc.so.6`, Debian's `libsqlite3.so.0`). `provided` names are skipped (the plugins themselves).
    package static func resolve(
        _ files: [String], provided: Set<String> = []
    ) -> Result<(found: [(name: String, path: String)], system: [String]), Problem> {
        var found: [(name: String, path: String)] = []
        var system: [String] = []
        var seen = provided
        var queue = files
        while !queue.isEmpty {
            let file = queue.removeFirst()
            let section: ELFDynamicSection
            switch ELFDynamicSection.read(file) {
            case .success(let read): section = read
            case .failure(let error):
                return .failure(
                    Problem(
                        code: .elfUnreadable, subject: file,
                        reason: "its dynamic section cannot be read: \(error.reason)",
                        fix: "rebuild it with `swift build`; only ELF files the linker wrote can be installed"))
            }
            let folders = section.searchFolders(forFileAt: file)
            for name in section.needed where seen.insert(name).inserted {
                if let path = folders.lazy.map({ $0 + "/" + name }).first(where: { FileFacts.kind(of: $0) == .file }) {
                    found.append((name, path))
                    queue.append(path)
                } else {
                    system.append(name)
                }
            }
        }
        return .success((found, system))
    }
}

/// A folder packed as a `.tar.gz` by the system's `tar` and `gzip` (on every Linux the bundle is for).
package enum FolderArchive {
    /// Packs `folder` (its last name the archive's top folder) into `file`: written beside it and renamed over it,
    /// so a reader never sees half an archive. Blocks.
    package static func write(_ folder: String, to file: String) throws(Problem) {
        let partial = file + ".partial-\(getpid())"
        let parent = (folder as NSString).deletingLastPathComponent
        // gzip -1: a bundle is mostly the Swift runtime (ICU's data alone is 39 MB), which -6 packs only 10% smaller
        // in three times as long (4.2 s against 1.5 s for a debug bundle, measured here).
        let arguments = ["tar", "-I", "gzip -1", "-cf", partial, "-C", parent, (folder as NSString).lastPathComponent]
        if FileFacts.kind(of: file) == .folder {
            throw Problem(
                code: .bundleNotWritten, subject: file, reason: "it is a folder, not an archive",
                fix: "name a new .tar.gz file, or leave out .tar.gz to bundle into a folder")
        }
        let outcome: ChildProcess.Outcome
        do {
            try Files.makeDirectory((file as NSString).deletingLastPathComponent)
            outcome = try ChildProcess(arguments, output: .capture, error: .output).wait()
        } catch let error as SystemCallError {
            throw Problem(
                code: .bundleNotWritten, subject: file, reason: "`tar` could not start: \(error.problem.reason)",
                fix: "install tar (Debian's `tar` package), or bundle into a folder with -o DIR")
        } catch {
            throw Problem(
                code: .bundleNotWritten, subject: file,
                reason: "its folder cannot be made: \(error.localizedDescription)",
                fix: "check that you may write \((file as NSString).deletingLastPathComponent)")
        }
        guard outcome.termination == .exited(0) else {
            try? Files.remove(partial)
            throw Problem(
                code: .bundleNotWritten, subject: file,
                reason: "`\(arguments.joined(separator: " "))` failed: \(outcome.text.suffix(400))",
                fix: "check that you may write \((file as NSString).deletingLastPathComponent) and its disk has room")
        }
        do {
            try FileReplacement.replace(file, with: partial)
        } catch {
            try? Files.remove(partial)
            throw Problem(
                code: .bundleNotWritten, subject: file, reason: error.problem.reason,
                fix: "check that you may write \((file as NSString).deletingLastPathComponent)")
        }
    }
}
