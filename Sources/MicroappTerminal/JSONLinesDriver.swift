import Foundation
import MicroappCore
import MicroappSDK

/// The `--ui json` front end: one JSON event per line in, one JSON object per line out.
///
/// Out: `{"type":"frame","account":null,"depth":0,"feature":"auth",…,"screen":{…},"version":1}` whenever the frame
/// changes, `{"type":"notice","code":…,"message":…}` for information and
/// `{"type":"error","code":…,"message":…,"fix":…}` for problems. `type` comes first, the other keys sorted.
/// In: `{"type":"tap","id":"sign-in"}` and the other `Event` forms. A line that is not an event writes an
/// `error` line with code `bad-event` and the run goes on. EOF ends the run once the app has settled.
@MainActor
public final class JSONLinesDriver {
    private let session: LineSession

    /// Drives `driver` from `input` (stdin by default), writing lines with `output` (stdout by default).
    /// After EOF the run waits until the app was quiet for `settle` and is not loading (at most `settleTimeout`),
    /// so the frames of work started by the last events are written too.
    public init(
        driver: any AppDriver, input: AsyncStream<String>? = nil, output: ((String) -> Void)? = nil,
        settle: Duration = .milliseconds(300), settleTimeout: Duration = .seconds(10)
    ) {
        let format = LineSession.Format(
            frame: Self.frameLine, notice: Self.noticeLine, parse: EventLineParser.parseJSON,
            badLine: { number, line, reason in
                Self.errorLine(
                    code: .badEvent,
                    message: "input line \(number) is not an event: \(reason): \(line.truncated(toWidth: 80))",
                    fix: "write one JSON event per line, e.g. \(EventLineParser.jsonExample)")
            })
        session = LineSession(
            driver: driver, input: input ?? StandardStreams.inputLines(), output: output ?? StandardStreams.writeLine,
            format: format, settle: settle, settleTimeout: settleTimeout)
    }

    /// Writes the first frame, then handles input until EOF or quit; the exit code is the caller's.
    public func run() async {
        await session.run()
    }

    /// `{"type":"frame",…}`: the frame's fields flat, `account` as null when signed out, secure fields masked.
    public nonisolated static func frameLine(_ frame: Frame) -> String {
        var frame = frame
        frame.screen = frame.screen.maskingSecureText
        return line(type: "frame", FrameBody(frame: frame))
    }

    /// `{"type":"notice",…}` for information, `{"type":"error",…}` for problems.
    public nonisolated static func noticeLine(_ notice: Notice) -> String {
        switch notice.level {
        case .info where notice.code == Notice.logCode:
            line(type: "log", LogBody(feature: notice.feature, line: notice.message))
        case .info: line(type: "notice", MessageBody(notice: notice))
        case .error: line(type: "error", MessageBody(notice: notice, alwaysFix: true))
        }
    }

    /// `{"type":"error","code":…,"fix":…,"message":…}`; `fix` is null when there is none.
    public nonisolated static func errorLine(code: Problem.Code, message: String, fix: String?) -> String {
        line(type: "error", MessageBody(code: code.rawValue, message: message, fix: fix, alwaysFix: true))
    }

    /// Encodes `body` with sorted keys and puts `"type"` first; one line, slashes not escaped.
    nonisolated static func line(type: String, _ body: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let typeField = #"{"type":"# + (String(decoding: (try? encoder.encode(type)) ?? Data(), as: UTF8.self))
        guard let data = try? encoder.encode(body) else { return typeField + "}" }
        let object = String(decoding: data, as: UTF8.self)
        return object == "{}" ? typeField + "}" : typeField + "," + object.dropFirst()
    }
}

/// `{"type":"log","feature":…,"line":…}`: a line an isolated feature printed.
private struct LogBody: Encodable {
    let feature: String?
    let line: String
}

/// A frame's own keys plus explicit nulls, so consumers can rely on every key being there.
private struct FrameBody: Encodable {
    let frame: Frame

    enum Key: String, CodingKey { case account }

    func encode(to encoder: any Encoder) throws {
        try frame.encode(to: encoder)
        var object = encoder.container(keyedBy: Key.self)
        if frame.account == nil { try object.encodeNil(forKey: .account) }
    }
}

/// The body of notice and error lines; the hot-swap fields (`feature`, `from`, `to`, `milliseconds`, `detail`,
/// `state`) only when set.
private struct MessageBody: Encodable {
    let code: String
    let message: String
    let fix: String?
    var alwaysFix = false
    var extra: Notice?

    init(code: String, message: String, fix: String?, alwaysFix: Bool = false) {
        self.code = code
        self.message = message
        self.fix = fix
        self.alwaysFix = alwaysFix
    }

    init(notice: Notice, alwaysFix: Bool = false) {
        self.init(code: notice.code, message: notice.message, fix: notice.fix, alwaysFix: alwaysFix)
        extra = notice
    }

    enum Key: String, CodingKey { case code, message, fix, feature, from, to, milliseconds, detail, state }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: Key.self)
        try object.encode(code, forKey: .code)
        try object.encode(message, forKey: .message)
        if let fix {
            try object.encode(fix, forKey: .fix)
        } else if alwaysFix {
            try object.encodeNil(forKey: .fix)
        }
        try object.encodeIfPresent(extra?.feature, forKey: .feature)
        try object.encodeIfPresent(extra?.from, forKey: .from)
        try object.encodeIfPresent(extra?.to, forKey: .to)
        try object.encodeIfPresent(extra?.milliseconds, forKey: .milliseconds)
        try object.encodeIfPresent(extra?.detail, forKey: .detail)
        try object.encodeIfPresent(extra?.state, forKey: .state)
    }
}
