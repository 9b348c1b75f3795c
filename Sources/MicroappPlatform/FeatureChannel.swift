import Dispatch
import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// One end of the feature protocol's socket. A thread of its own reads frames and hands each whole message to the
/// main actor, in order; writes go through a serial queue, so a peer that stops reading never blocks the main actor.
/// Used by the host (one per isolated feature) and by the child (`microapp feature-host`).
public final class FeatureChannel: @unchecked Sendable {
    /// Why the stream of messages ended.
    public enum End: Sendable, Equatable {
        /// The peer closed its end (or this end was closed).
        case closed
        /// The peer sent what the protocol does not allow (an oversized length, garbage, a truncated frame).
        case violation(String)
    }

    private let reading: Int32
    private let writing: Int32
    private let writer = DispatchQueue(label: "microapp.feature-channel.write")
    /// Bytes queued for writing and not yet written (guarded by `lock`): past the limit the peer is not reading.
    private var queued = 0
    private var closed = false
    /// Whether the reader thread closed `reading`: from then on its number may belong to another file, and `close()`
    /// must not shut it down (it would end an unrelated child's socket).
    private var readerClosed = false
    private let lock = NSLock()
    /// The most bytes queued for a peer that does not read before the channel gives up on it.
    public static let writeBacklogLimit = 16 * 1024 * 1024

    /// Takes over `descriptor` (a connected stream socket); `close()` releases it.
    public init(descriptor: Int32) {
        reading = descriptor
        writing = dup(descriptor)
    }

    /// Starts reading on a thread of its own: each message reaches `receive` on the main actor, then `ended` once.
    public func start(
        receive: @escaping @MainActor (FeatureMessage) -> Void, ended: @escaping @MainActor (End) -> Void
    ) {
        let thread = Thread { [self] in
            var inbound = inbound(receive: receive, ended: ended)
            while inbound.read() {}
        }
        thread.name = "microapp feature channel"
        thread.start()
    }

    /// The reading half for a thread that polls the socket among other descriptors (`start` runs one on a thread of
    /// its own): each message reaches `receive` on the main actor, then `ended` once. Read from one thread only.
    public func inbound(
        receive: @escaping @MainActor (FeatureMessage) -> Void, ended: @escaping @MainActor (End) -> Void
    ) -> Inbound {
        Inbound(channel: self, receive: receive, ended: ended)
    }

    /// What a reader of the socket keeps between reads: the frame read so far.
    public struct Inbound {
        private let channel: FeatureChannel
        private let receive: @MainActor (FeatureMessage) -> Void
        private let ended: @MainActor (End) -> Void
        private var reader = FeatureFrameReader()
        private var chunk = [UInt8](repeating: 0, count: 65_536)
        /// The socket to poll (readable: `read()` does not wait).
        public var descriptor: Int32 { channel.reading }

        fileprivate init(
            channel: FeatureChannel, receive: @escaping @MainActor (FeatureMessage) -> Void,
            ended: @escaping @MainActor (End) -> Void
        ) {
            self.channel = channel
            self.receive = receive
            self.ended = ended
        }

        /// Reads once (waiting until the socket has something) and hands on each whole message; false once the stream
        /// ended (the socket is closed and `ended` told): read no more.
        public mutating func read() -> Bool {
            let descriptor = channel.reading
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { return true }
            guard count > 0 else {
                let pending = reader.pendingBytes
                return finish(pending > 0 ? .violation("a frame cut off after \(pending) bytes") : .closed)
            }
            reader.append(chunk[..<count])
            do throws(FeatureWireError) {
                while let message = try reader.next() {
                    DispatchQueue.main.async { [receive] in MainActor.assumeIsolated { receive(message) } }
                }
            } catch {
                return finish(.violation(error.reason))
            }
            return true
        }

        private func finish(_ end: End) -> Bool {
            channel.lock.lock()
            _ = Glibc.close(channel.reading)
            channel.readerClosed = true
            channel.lock.unlock()
            DispatchQueue.main.async { [ended] in MainActor.assumeIsolated { ended(end) } }
            return false
        }
    }

    /// Sends `message` without waiting; answers false when the channel is closed or the peer stopped reading.
    @discardableResult
    public func send(_ message: FeatureMessage) -> Bool {
        let frame = FeatureWire.encode(message)
        lock.lock()
        guard !closed, queued + frame.count <= Self.writeBacklogLimit else {
            lock.unlock()
            return false
        }
        // Nothing queued: the frame goes out on this thread, as much as the socket takes without waiting (a hop to
        // the writer's thread would cost each message a thread wake-up). Under the lock, so that nothing queued can
        // start writing meanwhile and the order stays.
        let written = queued == 0 ? writeNow(frame) : 0
        guard written < frame.count else {
            lock.unlock()
            return true
        }
        let rest = written == 0 ? frame : frame.subdata(in: written..<frame.count)
        queued += rest.count
        lock.unlock()
        writer.async { [self] in
            let frame = rest
            var offset = 0
            let descriptor = writing
            while offset < frame.count {
                let count = frame.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress! + offset, frame.count - offset, Int32(MSG_NOSIGNAL))
                }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                offset += count
            }
            lock.lock()
            queued -= frame.count
            lock.unlock()
        }
        return true
    }

    /// Writes what the socket takes of `frame` without blocking; the count written.
    private func writeNow(_ frame: Data) -> Int {
        var offset = 0
        while offset < frame.count {
            let count = frame.withUnsafeBytes {
                Glibc.send(writing, $0.baseAddress! + offset, frame.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        return offset
    }

    /// Closes once every frame sent before is written: a refusal's last words reach the other side.
    public func closeAfterWrites() {
        writer.async { [self] in close() }
    }

    /// Closes the channel: the reader sees its end, queued writes finish or fail, nothing more is sent.
    public func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        // Under the lock the reader closes `reading` with: a number it closed already may be another child's now.
        if !wasClosed && !readerClosed { shutdown(reading, Int32(SHUT_RDWR)) }
        lock.unlock()
        guard !wasClosed else { return }
        writer.async { [writing] in _ = Glibc.close(writing) }
    }
}
