import CFetch
import Foundation
import MicroappPlatform
import Synchronization

/// One HTTP GET with libcurl's easy interface (CFetch), on a thread of its own, never the cooperative pool: the final
/// response's status and body, or how it failed. Not URLSession: FoundationNetworking links libcurl, so every process
/// of the host (nearly all of which ask the network nothing) would map it and the thirty libraries it needs at start;
/// CFetch opens libcurl when the first request is made.
enum HTTPGet {
    /// How a request failed.
    enum Failure: Error, Equatable {
        /// Nothing listens at the address.
        case refused
        /// No such host.
        case noHost
        /// No answer within the timeout (or as long a silence).
        case timedOut
        /// The connection closed before the answer was whole.
        case lost
        /// The task was cancelled.
        case cancelled
        /// libcurl cannot be loaded, with the dynamic linker's reason.
        case noLibrary(String)
        /// Any other failure, with libcurl's reason.
        case failed(String)
    }

    /// The final response to a GET of `url` asking for `accept` (after redirects, at most 5): its status and body,
    /// whatever the status. Ends after `timeout` seconds at the latest, and after as long a silence; cancelling the
    /// task stops the transfer at its next tick (within a second).
    static func fetch(_ url: URL, accept: String, timeout: Int) async throws(Failure) -> (status: Int, body: Data) {
        let cancelled = CancelFlag()
        let ended = await withTaskCancellationHandler {
            await BlockingWork.run {
                Result { () throws(Failure) in
                    try Transfer(cancelled: cancelled).run(url.absoluteString, accept, timeout)
                }
            }
        } onCancel: {
            cancelled.raise()
        }
        return try ended.get()
    }

    /// Set once, from the cancelling task; read by the transfer's hooks.
    private final class CancelFlag: Sendable {
        private let raised = Atomic(false)

        func raise() { raised.store(true, ordering: .relaxed) }

        var isRaised: Bool { raised.load(ordering: .relaxed) }
    }

    /// One transfer's body as it arrives, touched only by libcurl's hooks on the thread that runs it.
    private final class Transfer {
        let cancelled: CancelFlag
        var body = Data()

        init(cancelled: CancelFlag) { self.cancelled = cancelled }

        static func from(_ context: UnsafeMutableRawPointer?) -> Transfer {
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        }

        /// Blocks until the transfer ends.
        func run(_ url: String, _ accept: String, _ timeout: Int) throws(Failure) -> (status: Int, body: Data) {
            if cancelled.isRaised { throw .cancelled }
            var status = 0
            var error = [CChar](repeating: 0, count: 512)
            let end = withExtendedLifetime(self) {
                var hooks = microapp_fetch_hooks(
                    context: Unmanaged.passUnretained(self).toOpaque(), header: { _, _, _ in 0 },
                    body: { context, bytes, length in
                        let transfer = Transfer.from(context)
                        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
                        return transfer.cancelled.isRaised ? 1 : 0
                    },
                    tick: { context in Transfer.from(context).cancelled.isRaised ? 1 : 0 })
                return microapp_fetch(
                    url, accept, timeout, timeout * 1000, nil, nil, &hooks, &status, &error, error.count)
            }
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch end {
            case MICROAPP_FETCH_DONE: return (status, body)
            case MICROAPP_FETCH_STOPPED: throw .cancelled
            case MICROAPP_FETCH_QUIET: throw .timedOut
            case MICROAPP_FETCH_REFUSED: throw .refused
            case MICROAPP_FETCH_NO_HOST: throw .noHost
            case MICROAPP_FETCH_LOST: throw .lost
            case MICROAPP_FETCH_NO_LIBRARY: throw .noLibrary(reason)
            default: throw .failed(reason)
            }
        }
    }
}
