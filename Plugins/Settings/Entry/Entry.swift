import MicroappSDK
import Settings

/// The one symbol the host looks up: this feature's descriptor (ABI version, manifest, register).
@_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
    MicroappEntry.export(SettingsFeature.self)
}
