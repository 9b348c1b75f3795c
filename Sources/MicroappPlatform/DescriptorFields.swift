import CMicroappABI

#if canImport(Glibc)
    import Glibc
#endif

/// A plugin's descriptor read as the plugin laid it out: a field is read only when the descriptor's `struct_size`
/// covers it, so a host reads what a plugin of an older minor has and no further.
public struct DescriptorFields: @unchecked Sendable {
    /// The ABI 1.0 size (`MICROAPP_DESCRIPTOR_MIN_SIZE`: two `uint32_t`, three pointers), frozen: a descriptor of
    /// any 1.x is at least this big, however many fields the host's own header has appended.
    public static let minimumSize = 2 * MemoryLayout<UInt32>.size + 3 * MemoryLayout<UnsafeRawPointer>.size

    /// A C string field as read from a descriptor.
    public enum Text: Equatable, Sendable {
        /// The descriptor ends before the field (the plugin was built before it was appended).
        case notInDescriptor
        /// The field is a null pointer.
        case null
        /// No terminator within the limit: not read.
        case tooLong
        /// The field's text (invalid UTF-8 repaired).
        case text(String)
    }

    private let base: UnsafeRawPointer

    /// The fields of the descriptor at `descriptor`, which must be readable for 8 bytes.
    public init(_ descriptor: UnsafeRawPointer) { base = descriptor }

    /// `abi_version`.
    public var abiVersion: UInt32 { base.load(as: UInt32.self) }

    /// `struct_size`: how many bytes of the descriptor the plugin wrote.
    public var size: Int { Int(base.load(fromByteOffset: 4, as: UInt32.self)) }

    /// Whether the descriptor holds `count` bytes at `offset`.
    public func covers(offset: Int, count: Int) -> Bool { offset >= 0 && offset + count <= size }

    /// The C string whose pointer is at `offset`, read to at most `limit` bytes before its terminator.
    public func text(at offset: Int, limit: Int) -> Text {
        guard covers(offset: offset, count: MemoryLayout<UnsafeRawPointer>.size) else { return .notInDescriptor }
        guard let pointer = base.load(fromByteOffset: offset, as: UnsafePointer<CChar>?.self) else { return .null }
        guard let length = Self.boundedLength(pointer, limit: limit) else { return .tooLong }
        return .text(String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self))
    }

    /// Length of a C string, or nil if no terminator is found within `limit` bytes.
    package static func boundedLength(_ string: UnsafePointer<CChar>, limit: Int) -> Int? {
        let length = strnlen(string, limit + 1)
        return length > limit ? nil : length
    }
}
