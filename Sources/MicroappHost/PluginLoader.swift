import CMicroappABI
import Foundation
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// A plugin library that loaded and described itself: its manifest is read, none of its feature code ran.
public struct PluginImage: @unchecked Sendable {
    /// The file it was loaded from.
    public let path: String
    /// What the plugin says about itself.
    public let manifest: FeatureManifest
    /// The descriptor in the plugin's image (valid for the life of the process: images are never unloaded).
    let descriptor: UnsafePointer<microapp_descriptor>
}

/// ELF `e_machine` of the architecture this host runs on.
#if arch(x86_64)
    private let hostMachine: UInt16 = 62
#elseif arch(arm64)
    private let hostMachine: UInt16 = 183
#else
    private let hostMachine: UInt16 = 0
#endif

/// Loads plugin libraries and checks their descriptor. The only place in Microapps that calls `dlopen`.
///
/// Images are opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and never closed: unloading Swift code
/// crashes later, even with no live objects.
public enum PluginLoader {
    /// Loads `path` and reads its descriptor, checking ABI version and size before any other field.
    public static func load(_ path: String, fingerprint: String = MicroappEntry.hostFingerprint) -> Result<
        PluginImage, Diagnostic
    > {
        if let problem = checkFile(path) { return .failure(problem) }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let message = dlerror().map { String(cString: $0) } ?? "unknown reason"
            if message.contains("position-independent executable") {
                return .failure(
                    Diagnostic(
                        .notSharedObject, subject: path, reason: "it is an executable, not a shared library",
                        fix: "build the feature as a `.dynamic` library product, or remove the file from the plugin folder"))
            }
            return .failure(
                Diagnostic(
                    .loadFailed, subject: path, reason: "dlopen failed: \(message)",
                    fix:
                        "a missing library or undefined symbol means it was built with another toolchain or SDK: rebuild it with this host's (`swift build`)"
                ))
        }
        guard let symbol = dlsym(handle, MICROAPP_ENTRY_SYMBOL) else {
            return .failure(
                Diagnostic(
                    .noEntrySymbol, subject: path, reason: "it exports no `\(MICROAPP_ENTRY_SYMBOL)` symbol",
                    fix:
                        "add `@_cdecl(\"microapp_entry\") public func entry() -> UnsafeRawPointer? { MicroappEntry.export(MyFeature.self) }` to the plugin"
                ))
        }
        let entry = unsafeBitCast(symbol, to: microapp_entry_fn.self)
        guard let descriptor = entry() else {
            return .failure(
                Diagnostic(
                    .nullDescriptor, subject: path, reason: "`microapp_entry` returned null",
                    fix: "make sure the feature's manifest can be encoded (see the plugin's own tests)"))
        }
        return check(descriptor, path: path, fingerprint: fingerprint)
    }

    /// Calls the plugin's `register_feature` and returns the feature type it handed over.
    public static func register(_ image: PluginImage) -> Result<any Feature.Type, Diagnostic> {
        guard let registerFeature = image.descriptor.pointee.register_feature else {
            return .failure(
                Diagnostic(
                    .registerFailed, subject: image.path, reason: "its descriptor has no register_feature function",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)` rather than by hand"))
        }
        let registrar = FeatureRegistrar()
        let status = registrar.withOpaquePointer { registerFeature(image.descriptor, $0) }
        guard status == MICROAPP_STATUS_OK, let feature = registrar.feature else {
            return .failure(
                Diagnostic(
                    .registerFailed, subject: image.path,
                    reason: "register_feature returned status \(status) and registered no feature",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)` rather than by hand"))
        }
        return .success(feature)
    }

    private static func check(
        _ descriptor: UnsafePointer<microapp_descriptor>, path: String, fingerprint: String
    ) -> Result<PluginImage, Diagnostic> {
        // Only the first two fields are read until both say the rest is there.
        let header = UnsafeRawPointer(descriptor)
        let version = header.load(as: UInt32.self)
        let size = header.load(fromByteOffset: 4, as: UInt32.self)
        let major = version >> 16
        guard major == MICROAPP_ABI_MAJOR else {
            return .failure(
                Diagnostic(
                    .abiMismatch, subject: path,
                    reason: "it was built for entry ABI \(major).\(version & 0xFFFF); this host reads ABI \(MICROAPP_ABI_MAJOR).x",
                    fix: "rebuild the plugin against this host's MicroappSDK"))
        }
        let minimum = MemoryLayout<microapp_descriptor>.size
        guard Int(size) >= minimum else {
            return .failure(
                Diagnostic(
                    .shortDescriptor, subject: path,
                    reason: "its descriptor is \(size) bytes; ABI \(MICROAPP_ABI_MAJOR) needs at least \(minimum)",
                    fix: "rebuild the plugin against this host's MicroappSDK; do not write the descriptor by hand"))
        }
        let fields = descriptor.pointee
        let theirs = fields.sdk_fingerprint.map { String(cString: $0) } ?? "(none)"
        guard theirs == fingerprint else {
            return .failure(
                Diagnostic(
                    .fingerprintMismatch, subject: path,
                    reason: "it was built against SDK \(theirs); this host runs SDK \(fingerprint)",
                    fix: "rebuild the plugin with this host's MicroappSDK sources and toolchain, or restart the host after rebuilding both"))
        }
        guard let json = fields.manifest_json else {
            return .failure(
                Diagnostic(
                    .badManifest, subject: path, reason: "its manifest is null",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)`"))
        }
        guard let length = boundedLength(json, limit: ManifestCoding.maximumSize) else {
            return .failure(
                Diagnostic(
                    .badManifest, subject: path,
                    reason: "its manifest is longer than \(ManifestCoding.maximumSize) bytes",
                    fix: "keep the manifest to identity, routes and keys"))
        }
        let text = String(decoding: UnsafeRawBufferPointer(start: json, count: length), as: UTF8.self)
        do {
            return .success(
                PluginImage(path: path, manifest: try ManifestCoding.decode(text), descriptor: descriptor))
        } catch {
            return .failure(
                Diagnostic(
                    .badManifest, subject: path, reason: "its manifest is unusable: \(error.reason)",
                    fix: "fix the feature's `static var manifest` and rebuild"))
        }
    }

    /// Length of a C string, or nil if no terminator is found within `limit` bytes.
    private static func boundedLength(_ string: UnsafePointer<CChar>, limit: Int) -> Int? {
        let length = strnlen(string, limit + 1)
        return length > limit ? nil : length
    }

    /// Why a 64-bit little-endian ELF file is shorter than its headers say, or nil if it holds all they name.
    private static func truncation(of file: FileHandle, header: [UInt8], size: UInt64) -> String? {
        guard header.count == 64, header[4] == 2, header[5] == 1 else { return "its ELF header is incomplete" }
        func integer(_ bytes: some Collection<UInt8>) -> UInt64 {
            bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let programHeaders = integer(header[32..<40])
        let sectionHeaders = integer(header[40..<48])
        let programEntrySize = integer(header[54..<56])
        let programCount = integer(header[56..<58])
        let sectionEntrySize = integer(header[58..<60])
        let sectionCount = integer(header[60..<62])
        let programEnd = programHeaders.addingReportingOverflow(programEntrySize * programCount)
        guard !programEnd.overflow, programEnd.partialValue <= size, programEntrySize >= 56 else {
            return "its program headers end past the end of the file (\(size) bytes)"
        }
        if sectionCount > 0 {
            let sectionEnd = sectionHeaders.addingReportingOverflow(sectionEntrySize * sectionCount)
            guard !sectionEnd.overflow, sectionEnd.partialValue <= size else {
                return "its section headers end past the end of the file (\(size) bytes)"
            }
        }
        guard (try? file.seek(toOffset: programHeaders)) != nil,
            let table = try? file.read(upToCount: Int(programEntrySize * programCount)),
            table.count == Int(programEntrySize * programCount)
        else { return "its program headers cannot be read" }
        let entries = [UInt8](table)
        for index in 0..<Int(programCount) {
            let entry = entries[(index * Int(programEntrySize))...]
            let type = integer(entry.prefix(4))
            // PT_LOAD (1): the bytes dlopen maps from the file.
            guard type == 1 else { continue }
            let offset = integer(entry.dropFirst(8).prefix(8))
            let fileSize = integer(entry.dropFirst(32).prefix(8))
            let end = offset.addingReportingOverflow(fileSize)
            if end.overflow || end.partialValue > size {
                return "a loadable segment ends at byte \(end.partialValue) but the file has \(size)"
            }
        }
        return nil
    }

    /// Refuses what is not a readable regular ELF shared object before `dlopen` sees it.
    private static func checkFile(_ path: String) -> Diagnostic? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return Diagnostic(
                .notFound, subject: path, reason: "no such file",
                fix: "check the path, or build the plugins with `swift build`")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return Diagnostic(
                .notSharedObject, subject: path, reason: "it is not a regular file",
                fix: "point Microapps at lib<Feature>.so files or the folder that holds them")
        }
        guard let file = FileHandle(forReadingAtPath: path) else {
            return Diagnostic(
                .loadFailed, subject: path, reason: "it cannot be read (\(String(cString: strerror(errno))))",
                fix: "give the current user read permission on it")
        }
        defer { try? file.close() }
        let header = [UInt8]((try? file.read(upToCount: 64)) ?? Data())
        let isELF = header.count >= 20 && header.starts(with: [0x7F, 0x45, 0x4C, 0x46])
        // e_type (offset 16) 3 is ET_DYN, a shared object; e_machine (offset 18) is the architecture.
        guard isELF, header[16] == 3 else {
            return Diagnostic(
                .notSharedObject, subject: path,
                reason: isELF ? "it is an ELF file but not a shared object" : "it is not an ELF shared object",
                fix: "build the feature as a `.dynamic` library product, or remove the file from the plugin folder")
        }
        let machine = UInt16(header[18]) | UInt16(header[19]) << 8
        guard machine == hostMachine else {
            return Diagnostic(
                .notSharedObject, subject: path,
                reason: "it is built for another architecture (ELF machine \(machine); this host is \(hostMachine))",
                fix: "build the plugin on (or for) this machine's architecture")
        }
        // dlopen maps segments without checking that the file holds them: a truncated library dies with SIGBUS.
        if let reason = truncation(of: file, header: header, size: UInt64(info.st_size)) {
            return Diagnostic(
                .notSharedObject, subject: path, reason: "it is truncated: \(reason)",
                fix: "rebuild the plugin (`swift build`) or copy it again; the file is incomplete")
        }
        return nil
    }
}
