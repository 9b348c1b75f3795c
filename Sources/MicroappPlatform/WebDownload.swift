import Foundation
import MicroappCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP(S) GET of a channel's file with URLSession, bounded: the bytes are taken as they arrive and the transfer
/// is cancelled as soon as they pass the limit, so a server cannot fill memory or disk by sending more than was
/// signed for. A connection that goes quiet for `idleTimeout`, or a transfer longer than `totalTimeout`, fails.
enum WebDownload {
    /// How long a connection may stay silent.
    static let idleTimeout: TimeInterval = 30
    /// How long one file may take in all.
    static let totalTimeout: TimeInterval = 600

    /// Hands the body of `url` (at most `limit` bytes of it) to `take`; a problem naming the URL when it cannot be
    /// fetched, answers another status than 200, or `take` refuses it. Blocks.
    static func stream(_ url: URL, limit: Int, into take: (Data) -> Problem?) -> Problem? {
        let receiver = Receiver(limit: limit)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = totalTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        session.dataTask(with: url).resume()
        receiver.done.wait()
        session.finishTasksAndInvalidate()
        let outcome = receiver.outcome.withLock { $0 }
        let subject = url.absoluteString
        if let status = outcome.status, status != 200 {
            if status == 404 || status == 410 {
                return Problem(
                    code: "channel-missing-file", subject: subject,
                    reason: "the server answered \(status): no such file",
                    fix: "check the channel's URL (its top, where index.json is); tell the publisher if it is right")
            }
            return Problem(
                code: "channel-http-status", subject: subject, reason: "the server answered HTTP \(status), not 200",
                fix: "try again later; tell the channel's publisher if it persists")
        }
        if let error = outcome.error, !outcome.cutOff {
            let timedOut = (error as? URLError)?.code == .timedOut
            return Problem(
                code: timedOut ? "channel-timeout" : "channel-unreachable", subject: subject,
                reason: timedOut
                    ? "the server did not answer within \(Int(idleTimeout)) s"
                    : "it cannot be fetched (\(error.localizedDescription))",
                fix: "check the URL and your network, and that the server is up; then update again")
        }
        return take(outcome.bytes)
    }

    /// What a transfer gave: its status, the bytes kept (never more than the limit), and how it ended.
    struct Outcome: Sendable {
        var status: Int?
        var bytes = Data()
        var cutOff = false
        var error: (any Error)?
    }

    /// URLSession's delegate for one transfer: keeps at most `limit` bytes and cancels past them.
    final class Receiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let limit: Int
        let outcome = Mutex(Outcome())
        let done = DispatchSemaphore(value: 0)

        init(limit: Int) { self.limit = limit }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 200
            outcome.withLock { $0.status = status }
            completionHandler(status == 200 ? .allow : .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let full = outcome.withLock { outcome -> Bool in
                guard !outcome.cutOff else { return true }
                outcome.bytes.append(data.prefix(limit - outcome.bytes.count))
                outcome.cutOff = outcome.bytes.count >= limit
                return outcome.cutOff
            }
            if full { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            outcome.withLock { $0.error = error }
            done.signal()
        }
    }
}
