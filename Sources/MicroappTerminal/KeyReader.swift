import Foundation
import Glibc
import Synchronization

/// Reads key presses from the terminal (stdin in raw mode) on a thread of its own and hands them over as an
/// async stream. An ESC followed by nothing within `escapeTimeout` is the Esc key; otherwise it starts a
/// sequence such as an arrow key.
final class KeyReader: Sendable {
    private let fileDescriptor: Int32
    private let escapeTimeoutMilliseconds: Int32
    private let stopped = Atomic<Bool>(false)

    /// Reads `fileDescriptor` (stdin by default).
    init(fileDescriptor: Int32 = STDIN_FILENO, escapeTimeoutMilliseconds: Int32 = 40) {
        self.fileDescriptor = fileDescriptor
        self.escapeTimeoutMilliseconds = escapeTimeoutMilliseconds
    }

    /// Starts the reading thread; the stream ends at EOF, on a read error, or soon after `stop()`.
    func keys() -> AsyncStream<Key> {
        let (keys, continuation) = AsyncStream<Key>.makeStream()
        let thread = Thread { [self] in
            self.readLoop { key in continuation.yield(key) }
            continuation.finish()
        }
        thread.name = "microapp-keys"
        thread.start()
        return keys
    }

    /// Asks the thread to stop; it notices within 100 ms and reads nothing more.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func readLoop(_ deliver: (Key) -> Void) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while !stopped.load(ordering: .relaxed) {
            let timeout: Int32 = decoder.pending.isEmpty ? 100 : escapeTimeoutMilliseconds
            var request = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 {
                decoder.flush().forEach(deliver)
                continue
            }
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                decoder.flush().forEach(deliver)
                return
            }
            decoder.feed(buffer[0..<count]).forEach(deliver)
        }
    }
}
