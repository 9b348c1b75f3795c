import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The dynamic section of a 64-bit little-endian ELF file, as the dynamic linker reads it: the libraries the file
/// needs (`DT_NEEDED`) and the folders it searches for them (`DT_RUNPATH`, or the older `DT_RPATH`), and where that
/// search path's bytes lie in the file, so an install can point a copy at its own folders without patchelf.
package struct ELFDynamicSection: Sendable, Equatable {
    /// The sonames of the libraries the file needs, in the order it names them.
    package let needed: [String]
    /// The search path as written (`/opt/swift/usr/lib/swift/linux:$ORIGIN`), nil when the file has none.
    package let runpath: String?
    /// Where the search path's string starts in the file, and how many bytes it has (its NUL not counted); nil when
    /// there is none, or another string of the section ends in its bytes.
    let runpathBytes: (offset: UInt64, count: Int)?

    package static func == (left: Self, right: Self) -> Bool {
        left.needed == right.needed && left.runpath == right.runpath
            && left.runpathBytes?.offset == right.runpathBytes?.offset
            && left.runpathBytes?.count == right.runpathBytes?.count
    }

    /// The folders the search path names for a file at `path`, `$ORIGIN` (or `${ORIGIN}`) replaced by its folder.
    package func searchFolders(forFileAt path: String) -> [String] {
        let origin = (path as NSString).deletingLastPathComponent
        return (runpath ?? "").split(separator: ":").map {
            $0.replacingOccurrences(of: "${ORIGIN}", with: origin).replacingOccurrences(of: "$ORIGIN", with: origin)
        }
    }

    /// Reads the dynamic section of the file at `path`; the failure says what is missing.
    package static func read(_ path: String) -> Result<ELFDynamicSection, ELFReadError> {
        guard let file = FileHandle(forReadingAtPath: path) else { return .failure(ELFReadError("it cannot be read")) }
        defer { try? file.close() }
        return read(file)
    }

    /// Writes `runpath` over the search path of the file at `path` in place, the rest of the old string's bytes
    /// zeroed: the dynamic string table keeps its size, so nothing else in the file moves. Refused when the file has
    /// no search path, shares its bytes with another string, or the new one is longer than the old (the bytes would
    /// run into the next string).
    package static func rewriteRunpath(of path: String, to runpath: String) throws(Problem) {
        let section: ELFDynamicSection
        switch read(path) {
        case .success(let read): section = read
        case .failure(let error):
            throw Problem(
                code: .elfUnreadable, subject: path, reason: "its dynamic section cannot be read: \(error.reason)",
                fix: "rebuild it; only a 64-bit ELF file that the linker wrote can be installed")
        }
        guard section.runpath != runpath else { return }
        let wanted = Array(runpath.utf8)
        guard let place = section.runpathBytes, wanted.count <= place.count else {
            throw Problem(
                code: .runpathNotRewritable, subject: path,
                reason: section.runpath == nil
                    ? "it has no RUNPATH to point at \(runpath)"
                    : section.runpathBytes == nil
                        ? "its RUNPATH shares its bytes with another of its strings"
                        : "its RUNPATH (\(section.runpathBytes?.count ?? 0) bytes) is shorter than \(runpath) (\(wanted.count) bytes)",
                fix: "link it with an rpath at least as long, e.g. `-Xlinker -rpath -Xlinker \(runpath)`")
        }
        let bytes = wanted + [UInt8](repeating: 0, count: place.count - wanted.count)
        let descriptor: Int32
        do {
            descriptor = try SystemCall.run("open", path: path) { open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) }
        } catch {
            throw error.problem
        }
        defer { close(descriptor) }
        var done = 0
        while done < bytes.count {
            let written: Int
            do {
                written = try SystemCall.run("pwrite", path: path) {
                    bytes.withUnsafeBytes {
                        pwrite(descriptor, $0.baseAddress! + done, $0.count - done, off_t(place.offset) + off_t(done))
                    }
                }
            } catch {
                throw error.problem
            }
            done += written
        }
    }

    /// Reads the section of `file`: `PT_DYNAMIC` for the entries, `DT_STRTAB` (an address, turned into a file offset
    /// through the `PT_LOAD` segment that holds it) for their strings.
    static func read(_ file: FileHandle) -> Result<ELFDynamicSection, ELFReadError> {
        func bytes(at offset: UInt64, count: UInt64) -> [UInt8]? {
            count <= 64 << 20 ? file.bytes(at: offset, count: count) : nil
        }
        guard let header = bytes(at: 0, count: 64).flatMap(ELFHeader.init) else {
            return .failure(ELFReadError("it is not a 64-bit little-endian ELF file"))
        }
        let size = Int(header.programEntrySize)
        guard size >= 56,
            let programs = bytes(at: header.programHeaders, count: header.programEntrySize * header.programCount)
        else { return .failure(ELFReadError("its program headers cannot be read")) }
        // Elf64_Phdr: p_type (4), p_flags (4), p_offset (8), p_vaddr (8), p_paddr (8), p_filesz (8), …
        let segments = (0..<Int(header.programCount)).map { index in
            let at = index * size
            return (
                type: littleEndian(programs, at: at, width: 4), offset: littleEndian(programs, at: at + 8, width: 8),
                address: littleEndian(programs, at: at + 16, width: 8),
                fileSize: littleEndian(programs, at: at + 32, width: 8)
            )
        }
        // PT_DYNAMIC (2): the dynamic entries, 16 bytes each (d_tag, d_val).
        guard let dynamic = segments.first(where: { $0.type == 2 }),
            let entries = bytes(at: dynamic.offset, count: dynamic.fileSize)
        else { return .failure(ELFReadError("it has no dynamic section")) }
        var tags: [(tag: UInt64, value: UInt64)] = []
        for at in stride(from: 0, to: entries.count - 15, by: 16) {
            let tag = littleEndian(entries, at: at, width: 8)
            if tag == 0 { break }  // DT_NULL ends the list
            tags.append((tag, littleEndian(entries, at: at + 8, width: 8)))
        }
        // DT_STRTAB (5) and DT_STRSZ (10): the string table's address and size.
        guard let address = tags.first(where: { $0.tag == 5 })?.value,
            let tableSize = tags.first(where: { $0.tag == 10 })?.value,
            let load = segments.first(where: {
                $0.type == 1 && $0.address <= address && address < $0.address + $0.fileSize
            })
        else { return .failure(ELFReadError("it has no dynamic string table")) }
        let tableOffset = address - load.address + load.offset
        guard let table = bytes(at: tableOffset, count: tableSize) else {
            return .failure(ELFReadError("its dynamic string table cannot be read"))
        }
        func string(at offset: UInt64) -> (text: String, count: Int)? {
            guard offset < UInt64(table.count) else { return nil }
            let start = Int(offset)
            let end = table[start...].firstIndex(of: 0) ?? table.count
            return (String(decoding: table[start..<end], as: UTF8.self), end - start)
        }
        let needed = tags.filter { $0.tag == 1 }.compactMap { string(at: $0.value)?.text }
        // DT_RUNPATH (29) wins over DT_RPATH (15), as it does for the dynamic linker.
        let path = tags.first(where: { $0.tag == 29 }) ?? tags.first(where: { $0.tag == 15 })
        let runpath = path.flatMap { string(at: $0.value) }
        // A linker may let a string end inside another (tail merging): bytes another entry (a needed library, the
        // soname) starts in are not the search path's alone, and are not offered for rewriting.
        let shared =
            path.map { entry in
                tags.contains {
                    [1, 14].contains($0.tag) && $0.value > entry.value
                        && $0.value <= entry.value + UInt64(runpath?.count ?? 0)
                }
            } ?? false
        return .success(
            ELFDynamicSection(
                needed: needed, runpath: runpath?.text,
                runpathBytes: shared
                    ? nil : path.flatMap { entry in runpath.map { (tableOffset + entry.value, $0.count) } }))
    }
}
