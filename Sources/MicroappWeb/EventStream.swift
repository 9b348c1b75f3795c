import CWebServer
import Synchronization

/// One open `text/event-stream` answer: the events queued for one browser tab, sent as the connection can take them.
///
/// libmicrohttpd asks for bytes on its thread (`read`); when none are queued the connection is suspended, costing
/// nothing while the app is idle, and `send` (any thread) resumes it. A tab that reads slower than the app writes is
/// dropped once `backlog` bytes wait for it (it reconnects and gets the current frame): it never holds the app or the
/// other tabs.
final class EventStream: Sendable {
    /// libmicrohttpd's handle of the connection, used under the stream's lock only.
    private struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var pending: [UInt8] = []
        var connection: Connection?
        var suspended = false
        var ended = false
    }

    private let state = Mutex(State())
    /// The most bytes that may wait for this tab.
    let backlog: Int
    /// Called once when the connection is gone, on the server's thread.
    private let onEnd: @Sendable (EventStream) -> Void

    /// A stream that queues at most `backlog` bytes, and tells `onEnd` when its connection is gone.
    init(backlog: Int, onEnd: @escaping @Sendable (EventStream) -> Void) {
        self.backlog = backlog
        self.onEnd = onEnd
    }

    /// Queues `bytes` (one whole event) and wakes the connection; false when the stream has ended or was dropped for
    /// falling `backlog` bytes behind.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            if state.pending.count + bytes.count > backlog {
                state.pending = []
                state.ended = true
            } else {
                state.pending += bytes
            }
            if state.suspended, let connection = state.connection {
                state.suspended = false
                web_server_resume(connection.pointer)
            }
            return !state.ended
        }
    }

    /// Ends the stream: what is queued is sent, then the connection closes.
    func end() {
        state.withLock { state in
            state.ended = true
            if state.suspended, let connection = state.connection {
                state.suspended = false
                web_server_resume(connection.pointer)
            }
        }
    }

    /// The connection the stream answers; set by the server before the first `read`.
    func attach(to connection: OpaquePointer) {
        let connection = Connection(pointer: connection)
        state.withLock { $0.connection = connection }
    }

    /// The connection is gone (libmicrohttpd freed the answer): nothing is sent or resumed any more.
    func detach() {
        state.withLock { state in
            state.connection = nil
            state.ended = true
            state.pending = []
        }
        onEnd(self)
    }

    /// libmicrohttpd's reader: up to `room` queued bytes into `buffer`; none queued, the connection is suspended until
    /// `send` (0); ended with nothing left, the end of the stream (-1).
    func read(into buffer: UnsafeMutablePointer<CChar>, room: Int) -> Int {
        state.withLock { state in
            if state.pending.isEmpty {
                if state.ended { return -1 }
                guard let connection = state.connection else { return -1 }
                state.suspended = true
                web_server_suspend(connection.pointer)
                return 0
            }
            let count = min(room, state.pending.count)
            state.pending.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
            }
            state.pending.removeFirst(count)
            return count
        }
    }
}

/// Every open event stream of one app, and what a tab that connects is sent first: the app's introduction, the
/// latest of what is replaced (the status line, a redrawn gallery), the problems and the current frame. Two tabs on one app see the same events in the same order.
final class EventStreams: Sendable {
    private struct State {
        var streams: [ObjectIdentifier: EventStream] = [:]
        var opening: [[UInt8]] = []
        var latest: [(key: String, bytes: [UInt8])] = []
        var problems: [(code: String, bytes: [UInt8])] = []
        var frame: [UInt8]?
    }

    private let state = Mutex(State())
    /// The most bytes that may wait for one tab.
    let backlog: Int

    /// Streams that each hold at most `backlog` bytes unsent.
    init(backlog: Int = 32 * 1024 * 1024) {
        self.backlog = backlog
    }

    /// A new stream, sent the opening events and the current frame at once.
    func open() -> EventStream {
        let stream = EventStream(backlog: backlog) { [weak self] stream in self?.remove(stream) }
        state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = stream
            for event in state.opening { stream.send(event) }
            for event in state.latest { stream.send(event.bytes) }
            for problem in state.problems { stream.send(problem.bytes) }
            if let frame = state.frame { stream.send(frame) }
        }
        return stream
    }

    /// How many tabs are connected.
    var count: Int { state.withLock { $0.streams.count } }

    /// Sends `event` (`name` and one line of `data`) to every tab; a frame is also kept for tabs that connect later,
    /// and an opening event is sent first to each of them.
    func broadcast(_ name: String, data: String, kind: Kind = .passing) {
        let bytes = Self.encode(name, data: data)
        state.withLock { state in
            switch kind {
            case .passing: break
            case .frame: state.frame = bytes
            case .opening: state.opening.append(bytes)
            case .latest(let key):
                state.latest.removeAll { $0.key == key }
                state.latest.append((key, bytes))
            case .problem(let code):
                state.problems.append((code, bytes))
                if state.problems.count > Self.keptProblems { state.problems.removeFirst() }
            }
            // A stream that ended (dropped for falling behind) is forgotten; its connection closes when libmicrohttpd
            // next gets to write to it, or when it has been idle past the limit.
            for (key, stream) in state.streams where !stream.send(bytes) { state.streams[key] = nil }
        }
    }

    /// What an event is to tabs that connect later.
    enum Kind {
        /// Sent to the tabs open now only (a notice).
        case passing
        /// The current frame: replaces the one a new tab gets.
        case frame
        /// Sent to every tab, first, whenever it connects.
        case opening
        /// Sent to every tab that connects later, after the opening events, until one with the same key replaces it.
        case latest(key: String)
        /// A problem: also sent to a tab that connects later (before the frame), until `forget` drops its code.
        case problem(code: String)
    }

    /// How many problems a tab that connects later is told of, the latest.
    static let keptProblems = 16

    /// Problems with `code` are no longer told to tabs that connect (a build that failed, once one succeeded).
    func forget(code: String) {
        state.withLock { $0.problems.removeAll { $0.code == code } }
    }

    /// A comment line every tab ignores: it keeps idle connections from timing out and finds tabs that are gone.
    func keepAlive() {
        let bytes = Array(": keep-alive\n\n".utf8)
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.send(bytes) }
    }

    /// Ends every stream (the app is stopping).
    func endAll() {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.end() }
    }

    private func remove(_ stream: EventStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// `event: NAME`, then `data:` lines (one per line of `data`), then a blank line.
    static func encode(_ name: String, data: String) -> [UInt8] {
        var text = "event: \(name)\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return Array((text + "\n").utf8)
    }
}
