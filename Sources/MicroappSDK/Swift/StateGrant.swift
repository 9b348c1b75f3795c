import Foundation

/// Shared state as the host hands it to one feature: its value as JSON, a way to hear of new values and, for the
/// state's one owner, a way to write. State crosses the plugin boundary as values of Codable types, as services do,
/// so a feature decodes its own copy into its own type and never holds the host's object.
@MainActor
public struct StateGrant {
    /// What the feature may do: `read`, or `readWrite` for the state's one owner.
    public let access: Access
    private let current: () -> Data?
    private let listen: (@escaping (Data) -> Void) -> Observation
    private let write: ((Data) -> Void)?

    /// Grants `property` (the state as its holder keeps it) with `access`; a write that decodes to the value it
    /// already holds changes nothing, so a value echoed back is not a change.
    public init<V: Codable>(_ property: ObservableProperty<V>, access: Access) {
        self.access = access
        current = { StateCoding.encode(property.value) }
        listen = { onChange in property.observe { if let bytes = StateCoding.encode($0) { onChange(bytes) } } }
        write =
            access == .readWrite
            ? { bytes in
                guard bytes != StateCoding.encode(property.value), let value = StateCoding.decode(V.self, bytes) else {
                    return
                }
                property.value = value
            } : nil
    }

    /// A read-only copy of the state as `V`, following its changes; nil when the value does not decode as `V`.
    func value<V: Decodable>(as type: V.Type) -> ObservableValue<V>? {
        guard let bytes = current(), let value = StateCoding.decode(type, bytes) else { return nil }
        return ObservableValue(value) { receive in
            listen { if let new = StateCoding.decode(type, $0) { receive(new) } }
        }
    }

    /// The owner's own copy of the state as `V`: its writes reach the holder, the holder's changes reach it; nil
    /// when the grant is read-only or the value does not decode as `V`.
    func property<V: Codable>(as type: V.Type) -> ObservableProperty<V>? {
        guard let write, let bytes = current(), let value = StateCoding.decode(type, bytes) else { return nil }
        let property = ObservableProperty(value)
        property.links = [
            property.observe { if let bytes = StateCoding.encode($0) { write(bytes) } },
            listen { [weak property] bytes in
                guard let property, bytes != StateCoding.encode(property.value),
                    let new = StateCoding.decode(type, bytes)
                else { return }
                property.value = new
            },
        ]
        return property
    }
}

/// The one JSON form of shared state: keys sorted, so equal values are equal bytes.
enum StateCoding {
    static func encode<V: Encodable>(_ value: V) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try? encoder.encode(value)
    }

    static func decode<V: Decodable>(_ type: V.Type, _ bytes: Data) -> V? {
        try? JSONDecoder().decode(type, from: bytes)
    }
}
