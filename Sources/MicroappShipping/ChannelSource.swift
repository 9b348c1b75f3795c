import Foundation
import MicroappCore
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// Where a channel's static files are read from: a folder, or an `http(s)://` URL serving the same layout (any web
/// server). Every read is bounded: a file the signed index lists is read no further than its size allows (one byte
/// more, to notice a longer one), and the index and its signature no further than a fixed cap. Blocks: call it off
/// the cooperative pool.
public enum ChannelSource: Sendable, Equatable {
    /// A channel folder on this machine.
    case folder(String)
    /// A channel on a web server (its top, without the trailing slash).
    case web(URL)

    /// The most an index may weigh: a channel of hundreds of features and releases stays far below it.
    public static let indexCap = 8 << 20
    /// The most a signature file may weigh (it is three short strings).
    public static let signatureCap = 16 << 10
    /// The most the key rotations may weigh (a few hundred bytes per rotation).
    public static let rotationsCap = 1 << 20

    /// The channel `text` names: an `http://` or `https://` URL, else a folder (a `file://` URL, or a path relative to
    /// `currentDirectory`).
    public init(_ text: String, currentDirectory: String) {
        let trimmed = text.hasSuffix("/") && text.count > 1 ? String(text.dropLast()) : text
        if let url = Self.webURL(trimmed) {
            self = .web(url)
        } else if let url = URL(string: trimmed), url.isFileURL {
            self = .folder(url.standardizedFileURL.path)
        } else {
            let absolute = trimmed.hasPrefix("/") ? trimmed : currentDirectory + "/" + trimmed
            self = .folder(URL(fileURLWithPath: absolute).standardizedFileURL.path)
        }
    }

    /// `text` as an http(s) URL with a host, its scheme in lower case (scheme names are case-insensitive, RFC 3986:
    /// `HTTP://` is the same channel as `http://`); nil for anything else.
    private static func webURL(_ text: String) -> URL? {
        guard var parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parts.host != nil
        else { return nil }
        parts.scheme = scheme
        return parts.url
    }

    /// The channel as the person names it, canonical: the key of what was seen from it (`SeenVersions`).
    public var name: String {
        switch self {
        case .folder(let path): path
        case .web(let url): url.absoluteString
        }
    }

    /// Where the file at `path` (relative to the channel's top) is, for reading and for messages.
    public func location(of path: String) -> String { name + "/" + path }

    /// The index and its signature, each read no further than its cap, within `budget`.
    public func index(within budget: CheckBudget) -> Result<(index: Data, signature: Data), Problem> {
        let index: Data
        switch read(ChannelLayout.index, limit: Self.indexCap, within: budget) {
        case .success(let bytes): index = bytes
        case .failure(let problem): return .failure(problem)
        }
        return read(ChannelLayout.signature, limit: Self.signatureCap, within: budget).map { (index, $0) }
    }

    /// The publisher's key rotations (`rotations.json`), read no further than its cap; a `channel-missing-file`
    /// problem when the publisher never rotated.
    public func rotations(within budget: CheckBudget) -> Result<Data, Problem> {
        read(ChannelLayout.rotations, limit: Self.rotationsCap, within: budget)
    }

    /// The file `entry` of a verified index lists, read no further than its size allows and checked against its
    /// hash and size, within `budget`.
    public func file(_ entry: FileEntry, within budget: CheckBudget) -> Result<Data, Problem> {
        let subject = location(of: entry.path)
        var download = BoundedDownload(entry: entry, subject: subject)
        let problem = stream(entry.path, limit: entry.size + 1, within: budget) { download.append($0) }
        return problem.map { .failure($0) } ?? download.finish()
    }

    /// The whole file at `path`, refused past `limit` bytes.
    private func read(_ path: String, limit: Int, within budget: CheckBudget) -> Result<Data, Problem> {
        var bytes = Data()
        let subject = location(of: path)
        let problem = stream(path, limit: limit + 1, within: budget) { chunk in
            guard bytes.count + chunk.count <= limit else {
                return Problem(
                    code: .channelFileTooLarge, subject: subject,
                    reason: "it is larger than the \(limit) bytes a channel's \(path) may be",
                    fix: "check that the URL names a channel; tell the publisher if it does")
            }
            bytes.append(chunk)
            return nil
        }
        return problem.map { .failure($0) } ?? .success(bytes)
    }

    /// Hands `path`'s bytes to `take` as they arrive, never more than `limit` in all; the first problem (`take`'s or
    /// the transport's, or a web transfer's break of `budget`) ends it.
    private func stream(
        _ path: String, limit: Int, within budget: CheckBudget, into take: (Data) -> Problem?
    ) -> Problem? {
        switch self {
        case .folder(let folder): return Self.stream(file: folder + "/" + path, limit: limit, into: take)
        case .web(let url):
            return WebDownload.stream(url.appendingPathComponent(path), limit: limit, budget: budget, into: take)
        }
    }

    /// Hands the bytes of the file at `path` (opened without following a link) to `take`, never more than `limit`.
    static func stream(file path: String, limit: Int, into take: (Data) -> Problem?) -> Problem? {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                return Problem(
                    code: .channelMissingFile, subject: path, reason: "the channel has no such file",
                    fix: "check the channel's folder (`microapp publish` writes it); tell the publisher if it is theirs"
                )
            }
            return SystemCallError(call: "open", path: path, errno: code).problem
        }
        defer { _ = close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var left = limit
        while left > 0 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, left)) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return SystemCallError(call: "read", path: path, errno: errno).problem }
            if count == 0 { break }
            left -= count
            if let problem = take(Data(chunk[..<count])) { return problem }
        }
        return nil
    }
}
