import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// ELF `e_machine` of the architecture this host runs on.
#if arch(x86_64)
    private let hostMachine: UInt16 = 62
#elseif arch(arm64)
    private let hostMachine: UInt16 = 183
#else
    private let hostMachine: UInt16 = 0
#endif

/// Refuses, before `dlopen` sees it, what is not a complete, readable ELF shared object for this architecture:
/// `dlopen` of a truncated file dies with SIGBUS instead of failing.
package enum SharedObjectCheck {
    /// The fix for a file in a plugin folder that is no feature library at all; a command that names one file
    /// (`release --library`) says its own.
    package static let notALibraryFix =
        "build the feature as a `.dynamic` library product, or remove the file from the plugin folder"

    /// Why a 64-bit little-endian ELF file is shorter than its headers say, or nil if it holds all they name.
    private static func truncation(of file: FileHandle, header bytes: [UInt8], size: UInt64) -> String? {
        guard let header = ELFHeader(bytes) else { return "its ELF header is incomplete" }
        let programEnd = header.programHeaders.addingReportingOverflow(header.programEntrySize * header.programCount)
        guard !programEnd.overflow, programEnd.partialValue <= size, header.programEntrySize >= 56 else {
            return "its program headers end past the end of the file (\(size) bytes)"
        }
        if header.sectionCount > 0 {
            let sectionEnd = header.sectionHeaders.addingReportingOverflow(
                header.sectionEntrySize * header.sectionCount)
            guard !sectionEnd.overflow, sectionEnd.partialValue <= size else {
                return "its section headers end past the end of the file (\(size) bytes)"
            }
        }
        guard
            let entries = file.bytes(
                at: header.programHeaders, count: header.programEntrySize * header.programCount)
        else { return "its program headers cannot be read" }
        for index in 0..<Int(header.programCount) {
            let entry = index * Int(header.programEntrySize)
            // PT_LOAD (1): the bytes dlopen maps from the file.
            guard littleEndian(entries, at: entry, width: 4) == 1 else { continue }
            let offset = littleEndian(entries, at: entry + 8, width: 8)
            let fileSize = littleEndian(entries, at: entry + 32, width: 8)
            let end = offset.addingReportingOverflow(fileSize)
            if end.overflow || end.partialValue > size {
                return "a loadable segment ends at byte \(end.partialValue) but the file has \(size)"
            }
        }
        return nil
    }

    /// The problem with the file at `path`, or nil if `dlopen` may try it.
    package static func problem(at path: String) -> Problem? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return Problem(
                .notFound, subject: path, reason: "no such file",
                fix: "check the path, or build the plugins with `swift build`")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return Problem(
                .notSharedObject, subject: path, reason: "it is not a regular file",
                fix: "point Microapps at lib<Feature>.so files or the folder that holds them")
        }
        if let problem = ownershipProblem(path, info, what: "file") { return problem }
        let folder = (path as NSString).deletingLastPathComponent
        var folderInfo = stat()
        if stat(folder.isEmpty ? "." : folder, &folderInfo) == 0,
            let problem = ownershipProblem(folder, folderInfo, what: "folder", file: path)
        {
            return problem
        }
        guard let file = FileHandle(forReadingAtPath: path) else {
            return Problem(
                .loadFailed, subject: path, reason: "it cannot be read (\(String(cString: strerror(errno))))",
                fix: "give the current user read permission on it")
        }
        defer { try? file.close() }
        let header = [UInt8]((try? file.read(upToCount: 64)) ?? Data())
        let isELF = header.count >= 20 && header.starts(with: [0x7F, 0x45, 0x4C, 0x46])
        // e_type (offset 16) 3 is ET_DYN, a shared object; e_machine (offset 18) is the architecture.
        guard isELF, header[16] == 3 else {
            return Problem(
                .notSharedObject, subject: path,
                reason: isELF ? "it is an ELF file but not a shared object" : "it is not an ELF shared object",
                fix: notALibraryFix)
        }
        let machine = UInt16(header[18]) | UInt16(header[19]) << 8
        guard machine == hostMachine else {
            return Problem(
                .notSharedObject, subject: path,
                reason: "it is built for another architecture (ELF machine \(machine); this host is \(hostMachine))",
                fix: "build the plugin on (or for) this machine's architecture")
        }
        // dlopen maps segments without checking that the file holds them: a truncated library dies with SIGBUS.
        if let reason = truncation(of: file, header: header, size: UInt64(info.st_size)) {
            return Problem(
                .notSharedObject, subject: path, reason: "it is truncated: \(reason)",
                fix: "rebuild the plugin (`swift build`) or copy it again; the file is incomplete")
        }
        return nil
    }

    /// Code that someone else could have replaced is not loaded (see `FileTrust`).
    private static func ownershipProblem(
        _ path: String, _ info: stat, what: String, file: String? = nil
    ) -> Problem? {
        guard let weakness = FileTrust.weakness(path, info, what: what) else { return nil }
        return Problem(
            .unsafePermissions, subject: file ?? path, reason: weakness.reason,
            fix: weakness.modeFix ?? "copy the plugin into a folder you own, or `chown` it to yourself")
    }
}
