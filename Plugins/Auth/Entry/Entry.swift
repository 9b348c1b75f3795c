import Auth
import MicroappSDK

@_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? { MicroappEntry.export(AuthFeature.self) }
