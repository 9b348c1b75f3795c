import Foundation
import MicroappCore
import MicroappDigest

/// Checking a file against the entry a verified document gives for it: the size bounds what is read (a download
/// longer than the entry says is cut off and refused), and the bytes must hash as the entry says.
public enum FileCheck {
    /// The bytes when they are the entry's; a `file-mismatch` problem naming both hashes and sizes otherwise.
    public static func check(_ bytes: Data, against entry: FileEntry, subject: String) -> Result<Data, Problem> {
        let found = FileEntry(path: entry.path, bytes: bytes)
        guard found == entry else { return .failure(mismatch(entry, found, subject: subject)) }
        return .success(bytes)
    }

    static func mismatch(_ entry: FileEntry, _ found: FileEntry, subject: String) -> Problem {
        Problem(
            .fileMismatch, subject: subject,
            reason:
                "its bytes are not the ones signed: \(found.size) bytes with SHA-256 \(found.sha256), where \(entry.size) bytes with SHA-256 \(entry.sha256) were listed",
            fix: "do not use it; fetch it again, and tell the publisher if it persists")
    }
}

/// The bytes of one download as they arrive, refused as soon as they pass the size the index gives: a server cannot
/// fill the disk or memory by sending more than was signed for.
public struct BoundedDownload: Sendable {
    /// The file's entry in the verified index.
    public let entry: FileEntry
    /// What it is called in messages (its URL).
    public let subject: String
    /// The bytes received so far.
    public private(set) var bytes = Data()

    /// A download of `entry`, from `subject`.
    public init(entry: FileEntry, subject: String) {
        self.entry = entry
        self.subject = subject
    }

    /// How many more bytes may be read: what a reader asks for at most, plus one to notice a longer file.
    public var remaining: Int { entry.size - bytes.count + 1 }

    /// Adds `chunk`; a `download-too-large` problem when the bytes now pass the entry's size.
    public mutating func append(_ chunk: Data) -> Problem? {
        guard bytes.count + chunk.count <= entry.size else {
            return Problem(
                .downloadTooLarge, subject: subject,
                reason: "it sent more than the \(entry.size) bytes the signed index gives for it",
                fix: "do not use it; the server or something between is not serving the signed file, tell the publisher"
            )
        }
        bytes.append(chunk)
        return nil
    }

    /// The whole file once it ends, checked against the entry (hash and size).
    public func finish() -> Result<Data, Problem> { FileCheck.check(bytes, against: entry, subject: subject) }
}
