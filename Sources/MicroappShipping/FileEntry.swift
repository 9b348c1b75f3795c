import Foundation
import MicroappDigest

/// One file as a signed document lists it: where it is, its SHA-256 and its size. A file is used only when its
/// bytes match both, and no more than `size` bytes are ever read for it.
public struct FileEntry: Codable, Sendable, Hashable {
    /// The file's path, relative to the document that lists it (`libCharacters.so`, `releases/characters/2/…`).
    public var path: String
    /// Hex SHA-256 of its bytes.
    public var sha256: String
    /// Its size in bytes.
    public var size: Int

    /// An entry for `path` with the given hash and size.
    public init(path: String, sha256: String, size: Int) {
        self.path = path
        self.sha256 = sha256
        self.size = size
    }

    /// The entry describing `bytes` at `path`.
    public init(path: String, bytes: Data) {
        self.init(path: path, sha256: SHA256.hex(of: bytes), size: bytes.count)
    }

    /// The same file listed at another path.
    public func at(_ path: String) -> FileEntry { FileEntry(path: path, sha256: sha256, size: size) }
}
