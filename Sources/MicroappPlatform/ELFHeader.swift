import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The fields of a 64-bit little-endian ELF header that the loader's checks read before `dlopen` (offsets as the
/// ELF specification gives them): where the program and section header tables are, and their entries' size and count.
struct ELFHeader {
    /// `e_phoff`: where the program headers start.
    let programHeaders: UInt64
    /// `e_phentsize`: the size of one program header.
    let programEntrySize: UInt64
    /// `e_phnum`: how many program headers there are.
    let programCount: UInt64
    /// `e_shoff`: where the section headers start.
    let sectionHeaders: UInt64
    /// `e_shentsize`: the size of one section header.
    let sectionEntrySize: UInt64
    /// `e_shnum`: how many section headers there are.
    let sectionCount: UInt64

    /// The header in `bytes` (the file's first 64), or nil unless they are a whole ELFCLASS64, little-endian header.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == 64, bytes[4] == 2, bytes[5] == 1 else { return nil }
        programHeaders = littleEndian(bytes, at: 32, width: 8)
        programEntrySize = littleEndian(bytes, at: 54, width: 2)
        programCount = littleEndian(bytes, at: 56, width: 2)
        sectionHeaders = littleEndian(bytes, at: 40, width: 8)
        sectionEntrySize = littleEndian(bytes, at: 58, width: 2)
        sectionCount = littleEndian(bytes, at: 60, width: 2)
    }
}

/// The little-endian unsigned integer of `width` bytes at `offset` in `bytes`.
func littleEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
    // A plain loop, not `reversed().reduce` over a slice: a library's symbol table has hundreds of entries.
    var value: UInt64 = 0
    var index = offset + width
    while index > offset {
        index -= 1
        value = value << 8 | UInt64(bytes[index])
    }
    return value
}

extension FileHandle {
    /// Exactly `count` bytes at `offset`, or nil when they cannot all be read.
    ///
    /// One `pread` on the descriptor instead of Foundation's `seek` and `read(upToCount:)` (two calls and a `Data`).
    func bytes(at offset: UInt64, count: UInt64) -> [UInt8]? {
        guard count <= UInt64(Int.max), offset <= UInt64(Int64.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        var done = 0
        while done < bytes.count {
            let read = bytes.withUnsafeMutableBytes {
                pread(fileDescriptor, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return nil }
            done += read
        }
        return bytes
    }
}
