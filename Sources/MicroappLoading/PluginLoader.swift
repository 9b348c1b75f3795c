import CMicroappABI
import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// A plugin library that loaded and described itself: its manifest is read, none of its feature code ran.
public struct PluginImage: @unchecked Sendable {
    /// The library as it was found (what messages, locks and trust name).
    public let path: String
    /// The file that was mapped: the private copy of `path` made when it was checked (`LibraryCopy`), or `path`
    /// itself when it was loaded directly (a feature's child, a probe, a test).
    public let file: String
    /// What the plugin says about itself.
    public let manifest: FeatureManifest
    /// The SDK version the plugin was built against.
    public let sdkVersion: SDKVersion
    /// The descriptor in the plugin's image (valid for the life of the process: images are never unloaded); nil for
    /// a library described from its probe record and not mapped (the inspection commands).
    let descriptor: UnsafePointer<microapp_descriptor>?

    /// The descriptor's fields as the plugin laid them out, for fields appended after ABI 1.0; nil when not mapped.
    public var fields: DescriptorFields? { descriptor.map { DescriptorFields($0) } }

    /// Whether the library is mapped in this process (its feature can be registered).
    public var isMapped: Bool { descriptor != nil }
}

extension PluginImage: LoadedPlugin {
    /// Calls the plugin's `register_feature` and returns the feature type it handed over, to run in this process.
    @MainActor
    public func register() -> Result<any FeatureFactory, Problem> {
        PluginLoader.register(self).map { InProcessFeature($0, origin: path) }
    }
}

/// A library that is open and whose descriptor passed its checks; its manifest is still bytes, not yet decoded.
struct OpenedPlugin: @unchecked Sendable {
    let path: String
    /// The file mapped (see `PluginImage.file`).
    let file: String
    let sdkVersion: SDKVersion
    let descriptor: UnsafePointer<microapp_descriptor>
    /// The manifest's bytes in the plugin's image (valid for the life of the process, as the descriptor is).
    let manifestJSON: UnsafeRawBufferPointer
}

/// Loads plugin libraries and checks their descriptor. The only place in Microapps that calls `dlopen`.
///
/// Images are opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and never closed: unloading Swift code
/// crashes later, even with no live objects.
public enum PluginLoader {
    /// Loads `path` and reads its descriptor: the SDK version in the file is checked against `sdk` before
    /// `dlopen`, the descriptor's ABI version and size before any other field.
    public static func load(_ path: String, sdk: SDKVersion = .current) -> Result<PluginImage, Problem> {
        open(path, sdk: sdk).flatMap(describe)
    }

    /// Loads the private copy of a library (`LibraryCopy`): the bytes that were checked and hashed are the bytes
    /// mapped; messages and the image name the library as it was found.
    public static func load(_ copy: LibraryCopy, sdk: SDKVersion = .current) -> Result<PluginImage, Problem> {
        open(copy, sdk: sdk).flatMap(describe)
    }

    /// Opens the private copy of a library and checks its descriptor, naming the original.
    static func open(_ copy: LibraryCopy, sdk: SDKVersion) -> Result<OpenedPlugin, Problem> {
        switch open(copy.path, sdk: sdk) {
        case .success(let opened):
            return .success(
                OpenedPlugin(
                    path: copy.original, file: copy.path, sdkVersion: opened.sdkVersion,
                    descriptor: opened.descriptor, manifestJSON: opened.manifestJSON))
        case .failure(let problem): return .failure(copy.naming(problem))
        }
    }

    /// Maps the private copy of a library whose probe record describes it: the record's manifest and SDK version are
    /// what the probe read from these same bytes (`copy.sha256`), so the file's symbols are not read again nor the
    /// manifest decoded; the entry is still called for the descriptor whose `register_feature` makes the feature, and
    /// the descriptor's ABI, size and SDK version are checked as on any load. Answers nil when the record cannot stand
    /// for the library (a version text that is not one): load it the whole way then.
    static func open(
        _ copy: LibraryCopy, described description: LibraryDescription, sdk: SDKVersion
    ) -> Result<PluginImage, Problem>? {
        guard let version = description.sdk else { return nil }
        if let problem = SDKVersionSymbol.problem(with: [version], at: copy.original, host: sdk) {
            return .failure(problem)
        }
        // The record holds the manifest: the entry is asked for a descriptor without one (no plugin code builds it).
        let mapped = MicroappEntry.withRecordedManifests { map(copy.path) }
        let checked = mapped.flatMap { descriptor in
            check(descriptor, path: copy.path, sdk: version).map { Result.failure($0) } ?? .success(descriptor)
        }
        return checked.map { descriptor in
            PluginImage(
                path: copy.original, file: copy.path, manifest: description.manifest, sdkVersion: version,
                descriptor: descriptor)
        }.mapError(copy.naming)
    }

    /// A library described from its probe record and not mapped: what the inspection commands show, with no code of
    /// the library run in this process.
    static func unmapped(_ copy: LibraryCopy, described description: LibraryDescription) -> PluginImage? {
        guard let version = description.sdk else { return nil }
        return PluginImage(
            path: copy.original, file: copy.path, manifest: description.manifest, sdkVersion: version, descriptor: nil)
    }

    /// Decodes the manifest of an opened library.
    ///
    /// `PluginSet.load` opens every library first and decodes afterwards: decoding right after each `dlopen` is
    /// several times slower, the runtime's caches going cold with each new image (`loader-benchmark` shows both).
    static func describe(_ opened: OpenedPlugin) -> Result<PluginImage, Problem> {
        do {
            let manifest = try ManifestCoding.decode(utf8: opened.manifestJSON)
            return .success(
                PluginImage(
                    path: opened.path, file: opened.file, manifest: manifest, sdkVersion: opened.sdkVersion,
                    descriptor: opened.descriptor))
        } catch {
            return .failure(
                Problem(
                    .badManifest, subject: opened.path, reason: "its manifest is unusable: \(error.reason)",
                    fix: error.fix))
        }
    }

    /// What the file at `path` shows before anything maps it: a shared object this user may load (owner,
    /// permissions, ELF header), exporting the entry symbol, built against an SDK `sdk` runs; answers the plugin's SDK
    /// version. `open` checks it before `dlopen`, and the host before a feature-host child maps the library.
    public static func inspectFile(_ path: String, sdk: SDKVersion = .current) -> Result<SDKVersion, Problem> {
        if let problem = SharedObjectCheck.problem(at: path) { return .failure(problem) }
        let symbols: PluginSymbols
        switch PluginSymbols.read(path) {
        case .success(let read): symbols = read
        case .failure(let error):
            return .failure(
                Problem(
                    .sdkMismatch, subject: path, reason: "its SDK version cannot be read: \(error.reason)",
                    fix: "rebuild the plugin against SDK \(sdk.major).x (`swift build`); the file may be damaged"))
        }
        if symbols.isExecutable { return .failure(executable(path)) }
        if !symbols.definesEntry { return .failure(noEntrySymbol(path)) }
        if let problem = SDKVersionSymbol.problem(with: symbols.sdkVersions, at: path, host: sdk) {
            return .failure(problem)
        }
        return .success(symbols.sdkVersions[0])
    }

    /// Opens `path` and checks its descriptor up to the manifest text, which is not decoded yet.
    ///
    /// The SDK version symbol is read from the file first: a plugin built against an SDK this host cannot run is
    /// refused before `dlopen` runs its initializers.
    static func open(_ path: String, sdk: SDKVersion) -> Result<OpenedPlugin, Problem> {
        let pluginSDK: SDKVersion
        switch inspectFile(path, sdk: sdk) {
        case .success(let version): pluginSDK = version
        case .failure(let problem): return .failure(problem)
        }
        return map(path).flatMap { descriptor in
            if let problem = check(descriptor, path: path, sdk: pluginSDK) { return .failure(problem) }
            return manifestBytes(of: descriptor, path: path).map { bytes in
                OpenedPlugin(path: path, file: path, sdkVersion: pluginSDK, descriptor: descriptor, manifestJSON: bytes)
            }
        }
    }

    /// `dlopen` of `path` and the call of its entry: the descriptor it answers, not checked yet.
    private static func map(_ path: String) -> Result<UnsafePointer<microapp_descriptor>, Problem> {
        let symbol: UnsafeMutableRawPointer
        switch DynamicLibrary.symbol(MICROAPP_ENTRY_SYMBOL, in: path) {
        case .found(let address): symbol = address
        case .noSymbol: return .failure(noEntrySymbol(path))
        case .notMapped(let message):
            if message.contains("position-independent executable") { return .failure(executable(path)) }
            return .failure(
                Problem(
                    .loadFailed, subject: path, reason: "dlopen failed: \(message)",
                    fix:
                        "a missing library or undefined symbol means it was built with another toolchain or SDK: rebuild it with this host's (`swift build`)"
                ))
        }
        let entry = unsafeBitCast(symbol, to: microapp_entry_fn.self)
        guard let descriptor = entry() else {
            return .failure(
                Problem(
                    .nullDescriptor, subject: path, reason: "`microapp_entry` returned null",
                    fix: "make sure the feature's manifest can be encoded (see the plugin's own tests)"))
        }
        return .success(descriptor)
    }

    /// An executable where a library was expected.
    private static func executable(_ path: String) -> Problem {
        Problem(
            .notSharedObject, subject: path, reason: "it is an executable, not a shared library",
            fix: SharedObjectCheck.notALibraryFix)
    }

    /// A library that does not export the entry symbol.
    private static func noEntrySymbol(_ path: String) -> Problem {
        Problem(
            .noEntrySymbol, subject: path, reason: "it exports no `\(MICROAPP_ENTRY_SYMBOL)` symbol",
            fix:
                "add `@_cdecl(\"microapp_entry\") public func entry() -> UnsafeRawPointer? { MicroappEntry.export(MyFeature.self) }` to the plugin"
        )
    }

    /// Calls the plugin's `register_feature` and returns the feature type it handed over.
    public static func register(_ image: PluginImage) -> Result<any Feature.Type, Problem> {
        guard let descriptor = image.descriptor else {
            return .failure(
                Problem(
                    .registerFailed, subject: image.path,
                    reason: "it was described from its probe record and not loaded in this process",
                    fix: "load it with `PluginSet.load` (mapping) before registering it; this is a bug in the caller"))
        }
        guard let registerFeature = descriptor.pointee.register_feature else {
            return .failure(
                Problem(
                    .registerFailed, subject: image.path, reason: "its descriptor has no register_feature function",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)` rather than by hand"))
        }
        let registrar = FeatureRegistrar()
        let status = registrar.withOpaquePointer { registerFeature(descriptor, $0) }
        guard status == MICROAPP_STATUS_OK, let feature = registrar.feature else {
            return .failure(
                Problem(
                    .registerFailed, subject: image.path,
                    reason: "register_feature returned status \(status) and registered no feature",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)` rather than by hand"))
        }
        return .success(feature)
    }

    /// Checks the descriptor field by field up to the manifest, each only once the ones before it said it is there;
    /// nil when it passes. `sdk` is the version the file's symbol named; the descriptor must say the same.
    private static func check(
        _ descriptor: UnsafePointer<microapp_descriptor>, path: String, sdk: SDKVersion
    ) -> Problem? {
        let layout = DescriptorFields(descriptor)
        let major = layout.abiVersion >> 16
        guard major == MICROAPP_ABI_MAJOR else {
            return Problem(
                .abiMismatch, subject: path,
                reason:
                    "it was built for entry ABI \(major).\(layout.abiVersion & 0xFFFF); this host reads ABI \(MICROAPP_ABI_MAJOR).x",
                fix: "rebuild the plugin against this host's MicroappSDK")
        }
        guard layout.size >= DescriptorFields.minimumSize else {
            return Problem(
                .shortDescriptor, subject: path,
                reason:
                    "its descriptor is \(layout.size) bytes; ABI \(MICROAPP_ABI_MAJOR) needs at least \(DescriptorFields.minimumSize)",
                fix: "rebuild the plugin against this host's MicroappSDK; do not write the descriptor by hand")
        }
        let version = layout.text(
            at: MemoryLayout<microapp_descriptor>.offset(of: \.sdk_version)!,
            limit: Int(MICROAPP_SDK_VERSION_MAX_LENGTH))
        guard case .text(let text) = version, SDKVersion(text) == sdk else {
            let what: String
            switch version {
            case .text(let text): what = "SDK version \"\(text)\""
            case .tooLong: what = "an SDK version longer than \(MICROAPP_SDK_VERSION_MAX_LENGTH) bytes"
            case .null, .notInDescriptor: what = "no SDK version"
            }
            return Problem(
                .sdkMismatch, subject: path,
                reason: "its descriptor says \(what) but the library needs SDK \(sdk)'s version symbol",
                fix: "export the entry with `MicroappEntry.export(MyFeature.self)`; do not write the descriptor by hand"
            )
        }
        return nil
    }

    /// The manifest's bytes in a checked descriptor (`check`), still to decode.
    private static func manifestBytes(
        of descriptor: UnsafePointer<microapp_descriptor>, path: String
    ) -> Result<UnsafeRawBufferPointer, Problem> {
        let fields = descriptor.pointee
        guard let json = fields.manifest_json else {
            return .failure(
                Problem(
                    .badManifest, subject: path, reason: "its manifest is null",
                    fix: "export the entry with `MicroappEntry.export(MyFeature.self)`"))
        }
        guard let length = DescriptorFields.boundedLength(json, limit: ManifestCoding.maximumSize) else {
            return .failure(
                Problem(
                    .badManifest, subject: path,
                    reason: "its manifest is longer than \(ManifestCoding.maximumSize) bytes",
                    fix: "keep the manifest to identity, routes and keys"))
        }
        // Kept as bytes: the decoder refuses text that is not UTF-8 instead of repairing it.
        return .success(UnsafeRawBufferPointer(start: json, count: length))
    }
}
