import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP/1.1 client over a socket to 127.0.0.1, for requests a browser would never send (a foreign Host, no
/// Origin, an oversized body) and for event streams read as bytes. Blocking calls run on a Dispatch queue, never on
/// the test's actor.
public final class LoopbackConnection: @unchecked Sendable {
    private let socket: Int32
    private var received = Data()

    /// A connection to 127.0.0.1:`port`; `receiveBuffer` bytes of kernel buffer for what arrives, when given (a small
    /// one makes a reader that never reads fall behind after kilobytes, not megabytes).
    public init(port: UInt16, receiveBuffer: Int32? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw ConnectionError(reason: "connect to 127.0.0.1:\(port) failed (errno \(errno))")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(socket) }

    /// Why a connection could not be made.
    public struct ConnectionError: Error, CustomStringConvertible {
        /// What failed.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// Sends `bytes` whole.
    public func send(_ bytes: [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let sent = rest.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            rest = rest.dropFirst(sent)
        }
    }

    /// Reads until `marker` arrives, the peer closes, or `seconds` pass, and returns what arrived up to the end of the
    /// marker (everything received, when it did not arrive); what came after the marker is kept for the next read.
    /// Only new bytes are searched, so a stream of megabytes is read in linear time.
    public func read(for seconds: Double = 5, until marker: String?) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let deadline = DispatchTime.now() + seconds
                let wanted = marker.map { Data($0.utf8) }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var searched = 0
                while DispatchTime.now() < deadline {
                    if let wanted,
                        let found = self.received.range(
                            of: wanted, in: max(0, searched - wanted.count)..<self.received.count)
                    {
                        let text = String(decoding: self.received[..<found.upperBound], as: UTF8.self)
                        self.received = Data(self.received[found.upperBound...])
                        continuation.resume(returning: text)
                        return
                    }
                    searched = self.received.count
                    let count = recv(self.socket, &buffer, buffer.count, 0)
                    if count > 0 {
                        self.received.append(contentsOf: buffer[0..<count])
                    } else if count == 0 {
                        break
                    }
                }
                let text = String(decoding: self.received, as: UTF8.self)
                self.received = Data()
                continuation.resume(returning: text)
            }
        }
    }

    /// One whole request and its whole answer (the connection closes after it).
    public static func exchange(port: UInt16, _ request: String, body: [UInt8] = []) async throws -> String {
        let connection = try LoopbackConnection(port: port)
        connection.send(Array(request.utf8) + body)
        return await connection.read(until: nil)
    }

    /// A request's text: the method and path, `Host`, `Connection: close`, then `headers` and the body's length.
    /// Event streams are asked for as HTTP/1.0, so that their bytes come as sent, not cut into chunks.
    public static func request(
        _ method: String, _ path: String, port: UInt16, host: String? = nil, headers: [String] = [], bodyLength: Int = 0
    ) -> String {
        let version = path == "/events" ? "HTTP/1.0" : "HTTP/1.1"
        var lines = ["\(method) \(path) \(version)", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        lines += headers
        if method == "POST" { lines.append("Content-Length: \(bodyLength)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }
}

extension String {
    /// The status code of an HTTP answer (`HTTP/1.1 204 No Content` → 204), 0 when there is none.
    public var status: Int {
        let words = split(separator: " ", maxSplits: 2)
        return words.count > 1 ? Int(words[1]) ?? 0 : 0
    }

}
