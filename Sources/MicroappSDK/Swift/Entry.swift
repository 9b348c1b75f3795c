import CMicroappABI
import Synchronization

/// Builds the C descriptor a plugin's `microapp_entry` returns.
public enum MicroappEntry {
    /// The descriptor for `feature`. Inlined into the plugin, so the ABI version, struct size and SDK version
    /// are those the plugin was compiled with, not those of the SDK it happens to load with; calling
    /// `microapp_sdk_version()` here makes the plugin need its SDK version symbol, which the host reads from
    /// the file before loading it.
    @_alwaysEmitIntoClient
    public static func export<F: Feature>(_ feature: F.Type) -> UnsafeRawPointer? {
        describe(
            feature, abiVersion: UInt32(MICROAPP_ABI_MAJOR << 16 | MICROAPP_ABI_MINOR),
            structSize: UInt32(MemoryLayout<microapp_descriptor>.size),
            sdkVersion: String(cString: microapp_sdk_version()))
    }

    /// Makes (once per feature type) the descriptor; nil when the manifest cannot be encoded. Inside
    /// `withRecordedManifests(_:)` on this thread, a new descriptor's `manifest_json` is left NULL (the feature's
    /// manifest is neither built nor encoded); a later call outside it fills it in.
    public static func describe(
        _ feature: any Feature.Type, abiVersion: UInt32, structSize: UInt32, sdkVersion: String
    ) -> UnsafeRawPointer? {
        DescriptorTable.shared.descriptor(
            for: feature, abiVersion: abiVersion, structSize: structSize, sdkVersion: sdkVersion,
            manifest: !manifestRecorded)
    }

    /// For a host that already holds each library's manifest as data (recorded by its sandboxed probe): runs `body`,
    /// in which the entries this thread calls hand back descriptors without a manifest, so a load runs none of the
    /// plugin's code that builds and encodes it. The host must then not read `manifest_json` of those descriptors.
    public static func withRecordedManifests<Result>(_ body: () throws -> Result) rethrows -> Result {
        try $manifestRecorded.withValue(true, operation: body)
    }

    /// Whether the calling thread's host said it holds the manifests (a task-local, bound on the loading thread).
    @TaskLocal private static var manifestRecorded = false
}

/// A feature type that can sit in a Sendable table; metatypes are immutable.
private struct FeatureType: @unchecked Sendable {
    let type: any Feature.Type
}

/// Descriptors made so far, by address, so the register thunk can find the feature behind `self`.
private final class DescriptorTable: Sendable {
    static let shared = DescriptorTable()
    private let byAddress = Mutex<[UInt: FeatureType]>([:])
    private let byFeature = Mutex<[ObjectIdentifier: UInt]>([:])
    /// Held while a descriptor is made or its manifest filled in (the manifest may take long to build: not under
    /// the tables' locks, which `register_feature` takes).
    private let making = Mutex<Void>(())

    /// The descriptor of `feature`, made on its first call; with `manifest`, one whose manifest is filled in (made
    /// now if an earlier call left it out). Calls are serialised, so a manifest is filled in once.
    func descriptor(
        for feature: any Feature.Type, abiVersion: UInt32, structSize: UInt32, sdkVersion: String, manifest: Bool
    ) -> UnsafeRawPointer? {
        making.withLock { _ in
            if let address = byFeature.withLock({ $0[ObjectIdentifier(feature)] }) {
                let made = UnsafeMutablePointer<microapp_descriptor>(bitPattern: address)!
                if manifest && made.pointee.manifest_json == nil {
                    guard let json = try? ManifestCoding.encode(feature.manifest) else { return nil }
                    made.pointee.manifest_json = UnsafePointer(Self.lastingCString(json))
                }
                return UnsafeRawPointer(made)
            }
            var json: UnsafeMutablePointer<CChar>?
            if manifest {
                guard let encoded = try? ManifestCoding.encode(feature.manifest) else { return nil }
                json = Self.lastingCString(encoded)
            }
            let descriptor = UnsafeMutablePointer<microapp_descriptor>.allocate(capacity: 1)
            descriptor.initialize(
                to: microapp_descriptor(
                    abi_version: abiVersion, struct_size: structSize, sdk_version: Self.lastingCString(sdkVersion),
                    manifest_json: json.map { UnsafePointer($0) },
                    register_feature: { registerFeature(descriptor: $0, registrar: $1) }))
            let address = UInt(bitPattern: descriptor)
            byAddress.withLock { $0[address] = FeatureType(type: feature) }
            byFeature.withLock { $0[ObjectIdentifier(feature)] = address }
            return UnsafeRawPointer(descriptor)
        }
    }

    func feature(at descriptor: UnsafeRawPointer) -> (any Feature.Type)? {
        byAddress.withLock { $0[UInt(bitPattern: descriptor)]?.type }
    }

    /// `text` as a NUL-terminated C string that lives as long as the process (the descriptor's strings are never
    /// freed: the host may read them at any time), without the C library's `strdup`.
    private static func lastingCString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let bytes = text.utf8CString
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        bytes.withUnsafeBufferPointer { copy.initialize(from: $0.baseAddress!, count: $0.count) }
        return copy
    }
}

/// The C `register_feature` of every Swift plugin: checks both pointers, then hands the feature type over.
private func registerFeature(
    descriptor: UnsafePointer<microapp_descriptor>?, registrar: UnsafeMutableRawPointer?
) -> Int32 {
    guard let registrar, let target = FeatureRegistrar.live(registrar) else {
        return Int32(MICROAPP_STATUS_BAD_REGISTRAR)
    }
    guard let descriptor, let feature = DescriptorTable.shared.feature(at: UnsafeRawPointer(descriptor)) else {
        return Int32(MICROAPP_STATUS_UNKNOWN_DESCRIPTOR)
    }
    target.accept(feature)
    return Int32(MICROAPP_STATUS_OK)
}

/// The host's side of `register_feature`: an object whose address is the opaque registrar pointer.
public final class FeatureRegistrar: Sendable {
    private static let liveRegistrars = Mutex<[UInt: FeatureRegistrar]>([:])
    private let registered = Mutex<FeatureType?>(nil)

    /// A registrar for one call of `register_feature`.
    public init() {}

    /// The feature the plugin registered, if it did.
    public var feature: (any Feature.Type)? { registered.withLock { $0?.type } }

    /// Runs `body` with the opaque pointer to pass to `register_feature`; the pointer is valid only inside.
    public func withOpaquePointer<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        let pointer = Unmanaged.passUnretained(self).toOpaque()
        Self.liveRegistrars.withLock { $0[UInt(bitPattern: pointer)] = self }
        defer { _ = Self.liveRegistrars.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) } }
        return try body(pointer)
    }

    fileprivate static func live(_ pointer: UnsafeMutableRawPointer) -> FeatureRegistrar? {
        liveRegistrars.withLock { $0[UInt(bitPattern: pointer)] }
    }

    fileprivate func accept(_ feature: any Feature.Type) {
        registered.withLock { $0 = FeatureType(type: feature) }
    }
}
