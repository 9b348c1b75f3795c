import CCrypto
import Foundation

/// SHA-256 of plugin libraries and installed files, computed by OpenSSL's libcrypto (a maintained library, with the
/// CPU's SHA instructions where it has them): nothing cryptographic is written by hand here.
public struct SHA256: Sendable {
    /// The libcrypto context, owned by this hash alone (a hash is fed from one place and not copied while in use).
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer

        init() {
            // Without a context nothing can be hashed; libcrypto fails here only when memory is exhausted.
            guard let pointer = microapp_sha256_new() else { fatalError("libcrypto could not make a SHA-256 context") }
            self.pointer = pointer
        }

        deinit { microapp_sha256_free(pointer) }
    }

    private let context = Context()
    private var digest: [UInt8]?

    /// A hash of nothing yet.
    public init() {}

    /// The hex digest of `bytes`.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return hash.hexDigest()
    }

    /// The hex digest of `data` (the fast path for files).
    public static func hex(of data: Data) -> String {
        var hash = SHA256()
        hash.update(data)
        return hash.hexDigest()
    }

    /// Adds bytes to the message.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ update($0) }) == nil {
            Array(bytes).withUnsafeBufferPointer { update($0) }
        }
    }

    /// Adds the bytes of `data`.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0.bindMemory(to: UInt8.self)) }
    }

    /// Adds the bytes in `buffer` (the copying loop's chunks, without a copy).
    public mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
        precondition(digest == nil, "SHA256.update after finalize")
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        guard microapp_sha256_update(context.pointer, base, buffer.count) == 1 else {
            fatalError("libcrypto failed to hash \(buffer.count) bytes")
        }
    }

    /// The 32-byte digest; the hash takes no more bytes afterwards (calling it again gives the same digest).
    public mutating func finalize() -> [UInt8] {
        if let digest { return digest }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard microapp_sha256_final(context.pointer, &bytes) == 1 else {
            fatalError("libcrypto failed to finish a hash")
        }
        digest = bytes
        return bytes
    }

    /// The digest as 64 lowercase hex digits.
    public mutating func hexDigest() -> String {
        finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
