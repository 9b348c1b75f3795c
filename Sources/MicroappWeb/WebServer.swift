import CWebServer
import Foundation
import Synchronization

/// An HTTP request as the front end sees it: the method, the path and query, the few headers its checks read, and the
/// body (at most `WebServer.Limits.body` bytes; a longer one never reaches the front end).
struct WebRequest: Sendable {
    /// `GET`, `POST`, …
    var method: String
    /// The path without its query (`/events`).
    var path: String
    /// The query's `token` argument, if any.
    var token: String?
    /// The `Host` header.
    var host: String?
    /// The `Origin` header.
    var origin: String?
    /// The cookie the server set, by name.
    var cookies: [String: String]
    /// The body's bytes.
    var body: [UInt8]
}

/// What the server sends back: a whole body, or a stream of Server-Sent Events that stays open.
enum WebResponse: Sendable {
    /// A status, a media type, the bytes and further headers.
    case bytes(status: Int, mediaType: String, body: [UInt8], headers: [(String, String)])
    /// `text/event-stream`: what `stream` is given to send, as it is given.
    case stream(EventStream)

    /// A plain-text answer (a refusal's reason and fix, say).
    static func text(_ status: Int, _ text: String, headers: [(String, String)] = []) -> WebResponse {
        .bytes(status: status, mediaType: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }
}

/// The browser front end's HTTP server: GNU libmicrohttpd on 127.0.0.1, its own thread polling with epoll, every
/// request handed to `respond` on that thread once its body is in. Nothing here parses HTTP.
final class WebServer: Sendable {
    /// Bounds that keep a slow or flooding client from holding the app: connections, idle time, request sizes.
    struct Limits: Sendable {
        /// Connections at once, from everyone.
        var connections: UInt32 = 64
        /// Connections at once from one address (every local user is 127.0.0.1: this bounds one client, not one user).
        var connectionsPerAddress: UInt32 = 48
        /// Seconds a connection may stay idle before it is closed (event streams send a keep-alive well within it).
        var idleSeconds: UInt32 = 60
        /// Bytes one connection may use for its request line, headers and buffers (a longer header is refused).
        var connectionMemory = 64 * 1024
        /// The longest request body accepted.
        var body = 64 * 1024
    }

    /// The daemon, set once at start and read at stop; libmicrohttpd's handle is safe to use from any thread.
    private nonisolated(unsafe) var daemon: OpaquePointer?
    private let respond: @Sendable (WebRequest) -> WebResponse
    let limits: Limits
    /// The port the server listens on.
    private(set) nonisolated(unsafe) var port: UInt16 = 0

    /// A server that answers with `respond`; not listening until `start`.
    init(limits: Limits = Limits(), respond: @escaping @Sendable (WebRequest) -> WebResponse) {
        self.limits = limits
        self.respond = respond
    }

    /// How a start ended.
    enum Start: Equatable {
        /// Listening (on the server's `port`).
        case listening
        /// The port is taken or not allowed.
        case portRefused
        /// libmicrohttpd (`WebServer.library`) cannot be loaded: the dynamic linker's reason.
        case libraryMissing(String)
    }

    /// The library the server is made with, opened on the first start (not linked), and the Debian package with it.
    static let library = (soname: WEB_SERVER_LIBRARY, package: WEB_SERVER_PACKAGE)

    /// Listens on 127.0.0.1:`port` (0: a port the kernel picks); the port is `port` afterwards. Loads libmicrohttpd on
    /// the process's first start.
    func start(port requested: UInt16) -> Start {
        if let missing = web_server_load() { return .libraryMissing(String(cString: missing)) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = web_server_start(
            requested,
            web_server_limits(
                connections: limits.connections, connections_per_address: limits.connectionsPerAddress,
                idle_seconds: limits.idleSeconds, connection_memory: limits.connectionMemory),
            { context, connection, url, method, _, upload, uploadSize, requestContext in
                guard let context, let connection, let uploadSize, let requestContext else { return .NO }
                let server = Unmanaged<WebServer>.fromOpaque(context).takeUnretainedValue()
                return server.handle(connection, url, method, upload, uploadSize, requestContext)
            }, context,
            { _, _, requestContext, _ in
                // The request is over: the body collected for it goes.
                guard let requestContext, let pending = requestContext.pointee else { return }
                Unmanaged<PendingRequest>.fromOpaque(pending).release()
                requestContext.pointee = nil
            }, context)
        guard let started else { return .portRefused }
        daemon = started
        port = web_server_port(started)
        return .listening
    }

    /// Stops listening and closes every connection; event streams must have been ended first.
    func stop() {
        guard let daemon else { return }
        self.daemon = nil
        web_server_stop(daemon)
    }

    /// One call of libmicrohttpd's handler: the first makes the request's record, the next ones bring its body, the
    /// last (no more body) answers.
    private func handle(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ upload: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = requestContext.pointee else {
            let pending = PendingRequest()
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            let declared = Self.header(connection, "Content-Length").flatMap { Int($0) } ?? 0
            if declared > limits.body { return queue(Self.tooLarge(limits.body), on: connection) }
            return .YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, pending.body.count + uploadSize.pointee <= limits.body {
                upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) { bytes in
                    pending.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: uploadSize.pointee))
                }
            } else {
                pending.tooLarge = true
            }
            uploadSize.pointee = 0
            return .YES
        }
        if pending.tooLarge { return queue(Self.tooLarge(limits.body), on: connection) }
        let target = url.map { String(cString: $0) } ?? "/"
        let request = WebRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: target,
            token: Self.value(connection, .GET_ARGUMENT_KIND, "token"),
            host: Self.header(connection, "Host"), origin: Self.header(connection, "Origin"),
            cookies: Self.cookies(connection), body: pending.body)
        return queue(respond(request), on: connection)
    }

    private func queue(_ response: WebResponse, on connection: OpaquePointer) -> MHD_Result {
        switch response {
        case .bytes(let status, let mediaType, let body, let headers):
            let made = body.withUnsafeBytes { bytes in
                web_server_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
            guard let made else { return .NO }
            defer { web_server_destroy_response(made) }
            web_server_add_header(made, "Content-Type", mediaType)
            for (name, value) in SecurityHeaders.all + headers { web_server_add_header(made, name, value) }
            return web_server_queue(connection, UInt32(status), made)
        case .stream(let stream):
            stream.attach(to: connection)
            let made = web_server_response_from_callback(
                UInt64.max, 16 * 1024,
                { context, _, buffer, room in
                    guard let context, let buffer else { return -1 }
                    return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(
                        into: buffer, room: room)
                }, Unmanaged.passRetained(stream).toOpaque(),
                { context in
                    guard let context else { return }
                    let stream = Unmanaged<EventStream>.fromOpaque(context).takeRetainedValue()
                    stream.detach()
                })
            guard let made else { return .NO }
            defer { web_server_destroy_response(made) }
            web_server_add_header(made, "Content-Type", "text/event-stream; charset=utf-8")
            for (name, value) in SecurityHeaders.all { web_server_add_header(made, name, value) }
            return web_server_queue(connection, 200, made)
        }
    }

    private static func tooLarge(_ limit: Int) -> WebResponse {
        .text(413, "the request's body is longer than \(limit) bytes; send one event at a time\n")
    }

    private static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        value(connection, .HEADER_KIND, name)
    }

    private static func value(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        web_server_value(connection, kind, name).map { String(cString: $0) }
    }

    private static func cookies(_ connection: OpaquePointer) -> [String: String] {
        var found: [String: String] = [:]
        withUnsafeMutablePointer(to: &found) { found in
            _ = web_server_values(
                connection, .COOKIE_KIND,
                { context, _, key, value in
                    guard let context, let key, let value else { return .YES }
                    context.assumingMemoryBound(to: [String: String].self).pointee[String(cString: key)] = String(
                        cString: value)
                    return .YES
                }, found)
        }
        return found
    }
}

/// The body of a request as it arrives, piece by piece, on the server's thread.
private final class PendingRequest {
    var body: [UInt8] = []
    var tooLarge = false
}

/// Headers on every answer: the page runs only the host's own files, fetches nothing from elsewhere, is never framed,
/// and nothing is cached or sniffed.
enum SecurityHeaders {
    /// The Content-Security-Policy: scripts and styles from this server only, no inline script, no remote fetch.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

    /// Every header, name and value.
    static let all: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
}
