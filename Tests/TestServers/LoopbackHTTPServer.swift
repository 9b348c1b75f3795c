import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 only, for tests: one background thread answers connections one at a
/// time with what `handler` says for each request target. It is bounded: it serves at most `maxConnections`,
/// and stops by itself after `lifetime` (or when `stop()` is called or it is released).
public final class LoopbackHTTPServer: Sendable {
    /// What to do with one request.
    public enum Reply: Sendable {
        /// Answer with a status and a body.
        case respond(status: Int, body: String)
        /// Accept the request but say nothing for this long, then close.
        case silence(Duration)
        /// Answer with a status and a body after this long.
        case late(Duration, status: Int, body: String)
    }

    /// The port it listens on.
    public let port: UInt16
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Every request target served, such as `/api/character?page=2`.
    public var targets: [String] { served.withLock { $0 } }

    private let listener: Int32
    private let stopped = Mutex(false)
    private let served = Mutex<[String]>([])

    /// Starts listening on a free port of 127.0.0.1 and serving on a thread of its own.
    public init(
        maxConnections: Int = 32, lifetime: Duration = .seconds(20),
        handler: @escaping @Sendable (String) -> Reply
    ) throws {
        (listener, port) = try Self.listen()
        let deadline = ContinuousClock.now + lifetime
        Thread.detachNewThread { [self] in
            defer { close(listener) }
            var count = 0
            while count < maxConnections, ContinuousClock.now < deadline, !stopped.withLock({ $0 }) {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                count += 1
                serve(connection, deadline: deadline, handler: handler)
            }
        }
    }

    /// Stops accepting; the thread ends within 50 ms.
    public func stop() { stopped.withLock { $0 = true } }

    deinit { stop() }

    /// A port on 127.0.0.1 where nothing listens (bound, then closed).
    public static func unusedPort() throws -> UInt16 {
        let (socket, port) = try listen()
        close(socket)
        return port
    }

    private func serve(_ connection: Int32, deadline: ContinuousClock.Instant, handler: (String) -> Reply) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd, request.count < 65_536 {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        served.withLock { $0.append(target) }
        switch handler(target) {
        case .respond(let status, let body):
            respond(on: connection, status: status, body: body)
        case .silence(let duration):
            wait(duration, deadline: deadline)
        case .late(let duration, let status, let body):
            wait(duration, deadline: deadline)
            respond(on: connection, status: status, body: body)
        }
    }

    private func respond(on connection: Int32, status: Int, body: String) {
        let bytes = Array(body.utf8)
        let head =
            "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + bytes
        _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }

    /// Waits `duration`, never past `deadline`, and not at all once stopped.
    private func wait(_ duration: Duration, deadline: ContinuousClock.Instant) {
        let end = min(ContinuousClock.now + duration, deadline)
        while ContinuousClock.now < end, !stopped.withLock({ $0 }) { usleep(20_000) }
    }

    private static func listen() throws -> (socket: Int32, port: UInt16) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1, never another interface
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && Glibc.listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw ServerError("bind/listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (socket, UInt16(bigEndian: address.sin_port))
    }
}

/// Why the loopback server could not start.
public struct ServerError: Error, CustomStringConvertible {
    /// What failed and the system's reason.
    public let description: String
    init(_ description: String) { self.description = description }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
    }
}
