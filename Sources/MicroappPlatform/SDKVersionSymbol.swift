import CMicroappABI
import Foundation
import MicroappCore
import MicroappSDK

/// Reads, from the file and before `dlopen` runs any of its code, which SDK version a plugin was built against:
/// the `microapp_sdk_<major>_<minor>` symbol it needs from the SDK library (see `microapp.h`).
public enum SDKVersionSymbol {
    /// The SDK versions whose symbols the ELF shared object at `path` needs (undefined dynamic symbols named
    /// `microapp_sdk_<major>_<minor>`), or why its dynamic symbol table cannot be read.
    public static func required(by path: String) -> Result<[SDKVersion], ELFReadError> {
        PluginSymbols.read(path).map(\.sdkVersions)
    }

    /// Why a plugin needing `versions` cannot load in a host running SDK `host`, or nil when it can.
    package static func problem(with versions: [SDKVersion], at path: String, host: SDKVersion) -> Problem? {
        let rebuild = "rebuild the plugin against SDK \(host.major).x (this host's MicroappSDK)"
        guard let plugin = versions.first else {
            return Problem(
                .sdkMismatch, subject: path,
                reason:
                    "it names no SDK version (no `\(SDKVersion.symbolPrefix)<major>_<minor>` symbol): it was built against an SDK before 1.0 or exports its entry by hand",
                fix: "\(rebuild), with `MicroappEntry.export(MyFeature.self)` in its entry")
        }
        guard versions.count == 1 else {
            let names = versions.map(\.description).sorted().joined(separator: " and ")
            return Problem(
                .sdkMismatch, subject: path, reason: "it needs SDK versions \(names) at once", fix: rebuild)
        }
        guard !host.accepts(plugin) else { return nil }
        let reason = "it was built against SDK \(plugin); this host runs SDK \(host)"
        if plugin.major < host.major {
            return Problem(.sdkMismatch, subject: path, reason: reason, fix: rebuild)
        }
        let update = plugin.major > host.major ? "\(plugin.major).x" : "\(plugin) or later"
        return Problem(
            .sdkMismatch, subject: path, reason: reason,
            fix: "update the host to SDK \(update), or \(rebuild)")
    }
}

/// Why an ELF file's dynamic symbols could not be read.
public struct ELFReadError: Error, Sendable {
    /// What is missing or unreadable, as a clause ("it has no dynamic symbol table").
    public let reason: String
    package init(_ reason: String) { self.reason = reason }
}

/// What the loader learns from a library's file before `dlopen`: the SDK versions it needs, whether it defines
/// the entry symbol, whether it is an executable (it asks for an interpreter).
package struct PluginSymbols {
    /// The versions of the `microapp_sdk_<major>_<minor>` symbols it needs.
    package var sdkVersions: [SDKVersion]
    /// Whether it defines `microapp_entry`.
    package var definesEntry: Bool
    /// Whether it has a program interpreter (PT_INTERP): a position-independent executable, not a library.
    package var isExecutable: Bool

    /// Reads them from the file at `path`.
    package static func read(_ path: String) -> Result<PluginSymbols, ELFReadError> {
        guard let file = FileHandle(forReadingAtPath: path) else { return .failure(ELFReadError("it cannot be read")) }
        defer { try? file.close() }
        return ELFDynamicSymbols.read(file).map { symbols in
            // One pass over the table for both questions.
            let (needed, defined) = symbols.names(
                needingPrefix: SDKVersion.symbolPrefix, defining: MICROAPP_ENTRY_SYMBOL)
            return PluginSymbols(
                sdkVersions: needed.compactMap(SDKVersion.init(symbolName:)), definesEntry: defined,
                isExecutable: symbols.hasInterpreter)
        }
    }
}

/// The dynamic symbol table of a 64-bit little-endian ELF file, read with a few positioned reads (the section
/// headers, `.dynsym` and its string table), never the whole file.
package struct ELFDynamicSymbols {
    private let symbols: [UInt8]
    private let names: [UInt8]
    /// Whether a program header asks for an interpreter (PT_INTERP), as executables do.
    package let hasInterpreter: Bool

    private init(symbols: [UInt8], names: [UInt8], hasInterpreter: Bool) {
        self.symbols = symbols
        self.names = names
        self.hasInterpreter = hasInterpreter
    }

    /// Reads the table of `file`; the failure says what is missing.
    package static func read(_ file: FileHandle) -> Result<ELFDynamicSymbols, ELFReadError> {
        func bytes(at offset: UInt64, count: UInt64) -> [UInt8]? {
            count <= 64 << 20 ? file.bytes(at: offset, count: count) : nil
        }
        guard let header = bytes(at: 0, count: 64).flatMap(ELFHeader.init) else {
            return .failure(ELFReadError("it is not a 64-bit little-endian ELF file"))
        }
        let programSize = header.programEntrySize
        let programCount = header.programCount
        guard programSize >= 56, let programs = bytes(at: header.programHeaders, count: programSize * programCount)
        else {
            return .failure(ELFReadError("its program headers cannot be read"))
        }
        // PT_INTERP (3): the file names a program interpreter.
        let hasInterpreter = (0..<Int(programCount)).contains {
            littleEndian(programs, at: $0 * Int(programSize), width: 4) == 3
        }
        let entrySize = header.sectionEntrySize
        let count = header.sectionCount
        guard count > 0, entrySize >= 64, let table = bytes(at: header.sectionHeaders, count: entrySize * count) else {
            return .failure(ELFReadError("it has no section headers"))
        }
        let sections = (0..<Int(count)).map { Array(table[($0 * Int(entrySize))..<($0 * Int(entrySize) + 64)]) }
        // SHT_DYNSYM (11): the dynamic symbols; its sh_link names the section holding their names.
        guard let dynsym = sections.first(where: { littleEndian($0, at: 4, width: 4) == 11 }) else {
            return .failure(ELFReadError("it has no dynamic symbol table"))
        }
        let link = Int(littleEndian(dynsym, at: 40, width: 4))
        guard link < sections.count,
            let symbols = bytes(
                at: littleEndian(dynsym, at: 24, width: 8), count: littleEndian(dynsym, at: 32, width: 8)),
            let names = bytes(
                at: littleEndian(sections[link], at: 24, width: 8),
                count: littleEndian(sections[link], at: 32, width: 8))
        else { return .failure(ELFReadError("its dynamic symbol table cannot be read")) }
        return .success(ELFDynamicSymbols(symbols: symbols, names: names, hasInterpreter: hasInterpreter))
    }

    /// In one pass: the names of the undefined symbols that start with `prefix`, and whether `name` is defined.
    package func names(needingPrefix prefix: String, defining name: String) -> (needed: [String], defines: Bool) {
        let wanted = Array(prefix.utf8)
        let exact = Array(name.utf8) + [0]
        var needed: [String] = []
        var defines = false
        // Elf64_Sym: st_name (4), st_info (1), st_other (1), st_shndx (2), st_value (8), st_size (8); an
        // st_shndx of 0 (SHN_UNDEF) marks a symbol needed from elsewhere.
        for start in stride(from: 0, to: symbols.count - 23, by: 24) {
            let isDefined = symbols[start + 6] != 0 || symbols[start + 7] != 0
            let offset = Int(littleEndian(symbols, at: start, width: 4))
            guard offset < names.count else { continue }
            if isDefined {
                if !defines && names[offset...].starts(with: exact) { defines = true }
            } else if names[offset...].starts(with: wanted) {
                let end = names[offset...].firstIndex(of: 0) ?? names.count
                needed.append(String(decoding: names[offset..<end], as: UTF8.self))
            }
        }
        return (needed, defines)
    }
}
