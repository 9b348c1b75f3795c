import CFetch
import Foundation
import MicroappCore

/// One HTTP(S) GET of a channel's file with libcurl's easy interface, bounded: the bytes are counted as they arrive
/// on the wire and the transfer is stopped as soon as they pass the limit, so a server cannot fill memory or disk by
/// sending more than was signed for. No content coding is asked for and none is decoded, and a reply that names one
/// (`Content-Encoding: gzip`) is refused before its body is read: a compressed bomb is never inflated. (Foundation's
/// URLSession on Linux decodes every reply and queues the decoded bytes faster than they are taken: a 256 KiB gzip
/// reply cost 320 MB.) The transfer is also held to its check's budget (`CheckBudget`): stopped past the check's
/// deadline, or when it averages less than the floor. libcurl waits in poll and ticks at least once a second, when the
/// pace is looked at: waiting costs no CPU. A connection silent for `idleTimeout` fails too.
package enum WebDownload {
    /// How long a connection may stay silent.
    static let idleTimeout = 30

    /// Hands the body of `url` (at most `limit` bytes of it) to `take`; a problem naming the URL when it cannot be
    /// fetched, answers another status than 200 or with a content coding, breaks `budget`, or `take` refuses it.
    /// Blocks.
    package static func stream(_ url: URL, limit: Int, budget: CheckBudget, into take: (Data) -> Problem?) -> Problem? {
        let transfer = Transfer(limit: limit, pace: TransferPace(started: budget.clock(), budget: budget))
        var status = 0
        var error = [CChar](repeating: 0, count: 512)
        let total = max(1, (budget.deadline - budget.clock()).wholeMilliseconds + 1000)
        let end = withExtendedLifetime(transfer) {
            var hooks = microapp_fetch_hooks(
                context: Unmanaged.passUnretained(transfer).toOpaque(),
                header: { context, line, length in
                    Transfer.from(context).header(
                        String(decoding: UnsafeRawBufferPointer(start: line, count: length), as: UTF8.self))
                },
                body: { context, bytes, length in
                    Transfer.from(context).body(UnsafeRawBufferPointer(start: bytes, count: length))
                },
                tick: { context in Transfer.from(context).tick() })
            let authorities = budget.limits.authorities
            return microapp_fetch(
                url.absoluteString, nil, idleTimeout, Int(total), authorities.file?.path, authorities.folder?.path,
                &hooks,
                &status, &error, error.count)
        }
        if end == MICROAPP_FETCH_QUIET, transfer.cut == nil, budget.clock() >= budget.deadline {
            transfer.cut = .pastDeadline
        }
        let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let subject = url.absoluteString
        if let problem = problem(transfer, end: end, status: status, reason: reason, subject: subject, budget: budget) {
            return problem
        }
        return take(transfer.bytes)
    }

    /// The problem of a transfer that ended as `end`, nil when its bytes are there to take.
    private static func problem(
        _ transfer: Transfer, end: microapp_fetch_end, status: Int, reason: String, subject: String, budget: CheckBudget
    ) -> Problem? {
        let slow = "try again on a better connection; a server that sends this slowly on purpose holds updates back"
        switch transfer.cut {
        case .tooSlow(let bytes, let seconds):
            return Problem(
                code: .channelTooSlow, subject: subject,
                reason:
                    "it came at \(Int(Double(bytes) / max(seconds, 0.001))) bytes a second over \(Int(seconds)) s, "
                    + "below the floor of \(budget.limits.minimumRate) (MICROAPP_MIN_RATE)",
                fix: slow + " (tell the publisher); for a slow link, lower MICROAPP_MIN_RATE")
        case .pastDeadline:
            return Problem(
                code: .channelDeadline, subject: subject,
                reason:
                    "the check did not end within its \(Int(budget.limits.deadline.timeInterval)) s "
                    + "(MICROAPP_CHECK_DEADLINE)",
                fix: slow + " (tell the publisher); for a slow link, raise MICROAPP_CHECK_DEADLINE")
        case .coding(let coding):
            return Problem(
                code: .channelContentCoding, subject: subject,
                reason:
                    "the server sent it with Content-Encoding: \(coding), a content coding this host neither asks "
                    + "for nor accepts (the size signed is the size of the file as it is)",
                fix: "serve the channel's files as they are (turn compression off for them); tell the publisher")
        case .full, nil: break
        }
        if status != 200 && (end == MICROAPP_FETCH_DONE || end == MICROAPP_FETCH_STOPPED) && status != 0 {
            if status == 404 || status == 410 {
                return Problem(
                    code: .channelMissingFile, subject: subject,
                    reason: "the server answered \(status): no such file",
                    fix: "check the channel's URL (its top, where index.json is); tell the publisher if it is right")
            }
            return Problem(
                code: .channelHttpStatus, subject: subject, reason: "the server answered HTTP \(status), not 200",
                fix: "try again later; tell the channel's publisher if it persists")
        }
        switch end {
        case MICROAPP_FETCH_QUIET:
            return Problem(
                code: .channelTimeout, subject: subject, reason: "the server went quiet for \(idleTimeout) s",
                fix: "check the URL and your network, and that the server is up; then update again")
        case MICROAPP_FETCH_UNTRUSTED:
            return Problem(
                code: .channelCertificate, subject: subject,
                reason:
                    "its server's certificate is not trusted (\(reason)); checked against "
                    + budget.limits.authorities.described,
                fix:
                    "if the server's certificate comes from your company's own certificate authority, trust that "
                    + "authority: put its PEM file in /usr/local/share/ca-certificates/ as NAME.crt and run "
                    + "`sudo update-ca-certificates`, or name the file in SSL_CERT_FILE=FILE for this host alone "
                    + "(docs/shipping.md); otherwise this is not the server you meant: tell the publisher")
        case MICROAPP_FETCH_BAD_AUTHORITIES:
            return Problem(
                code: .channelCertificateFile, subject: subject,
                reason:
                    "the certificate authorities in \(budget.limits.authorities.described) cannot be read (\(reason))",
                fix: "name a readable PEM file of certificate authorities, or unset the variable to use the system's")
        case MICROAPP_FETCH_NO_LIBRARY:
            return .systemLibraryMissing(
                MICROAPP_FETCH_LIBRARY, package: MICROAPP_FETCH_PACKAGE, neededFor: "downloading updates",
                reason: reason)
        case MICROAPP_FETCH_FAILED, MICROAPP_FETCH_REFUSED, MICROAPP_FETCH_NO_HOST, MICROAPP_FETCH_LOST:
            return Problem(
                code: .channelUnreachable, subject: subject, reason: "it cannot be fetched (\(reason))",
                fix: "check the URL and your network, and that the server is up; then update again")
        default: return nil
        }
    }

    /// Why a transfer was stopped before its end.
    enum Cut: Equatable {
        case full
        case coding(String)
        case tooSlow(bytes: Int, seconds: Double)
        case pastDeadline
    }

    /// One transfer's state, touched only by libcurl's hooks on the thread that called `stream`.
    final class Transfer {
        let limit: Int
        let pace: TransferPace
        var bytes = Data()
        var received = 0
        var status = 0
        var coding: String?
        var cut: Cut?

        init(limit: Int, pace: TransferPace) {
            self.limit = limit
            self.pace = pace
        }

        static func from(_ context: UnsafeMutableRawPointer?) -> Transfer {
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        }

        /// One header line of a response: its status line starts a response afresh; its end decides whether the
        /// body is read (a redirect's is libcurl's to skip; only a 200 with no content coding is).
        func header(_ line: String) -> Int32 {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("HTTP/") {
                status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
                coding = nil
            } else if let colon = text.firstIndex(of: ":"),
                text[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-encoding"
            {
                let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
                coding = value.isEmpty || value == "identity" ? nil : value
            } else if text.isEmpty, !(300..<400).contains(status) {
                if let coding, status == 200 {
                    cut = .coding(coding)
                    return 1
                }
                return status == 200 ? 0 : 1
            }
            return 0
        }

        /// A chunk of the body as it came: counted, kept up to the limit; past it, the transfer stops.
        func body(_ chunk: UnsafeRawBufferPointer) -> Int32 {
            received += chunk.count
            bytes.append(contentsOf: chunk.prefix(limit - bytes.count))
            if bytes.count >= limit {
                cut = .full
                return 1
            }
            return tick()
        }

        /// The pace looked at: past the deadline, or below the floor, the transfer stops.
        func tick() -> Int32 {
            switch pace.verdict(bytes: received, at: pace.budget.clock()) {
            case .wait: return 0
            case .tooSlow:
                cut = .tooSlow(bytes: received, seconds: (pace.budget.clock() - pace.started).timeInterval)
                return 1
            case .pastDeadline:
                cut = .pastDeadline
                return 1
            }
        }
    }
}
