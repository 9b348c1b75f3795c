import Foundation

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
    bytes[offset..<(offset + width)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
}

extension FileHandle {
    /// Exactly `count` bytes at `offset`, or nil when they cannot all be read.
    func bytes(at offset: UInt64, count: UInt64) -> [UInt8]? {
        guard (try? seek(toOffset: offset)) != nil, let data = try? read(upToCount: Int(count)),
            data.count == Int(count)
        else { return nil }
        return [UInt8](data)
    }
}
