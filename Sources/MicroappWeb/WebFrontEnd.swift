import Foundation
import MicroappCore
import MicroappTerminal
import Synchronization

/// The `--ui web` front end: the app served to a browser on 127.0.0.1. The page (embedded, Sources/CWebPage/page)
/// gets the app's frames and notices as Server-Sent Events on `/events` — the same JSON objects `--ui json` writes —
/// and posts the person's events to `/event` as `--ui json` reads them. Every tab on the app sees the same frames.
@MainActor
public final class WebFrontEnd {
    /// Where the app is served and with which secret.
    public struct Address: Codable, Sendable, Equatable {
        /// The port (0: one the kernel picks).
        public var port: UInt16
        /// The secret every request must carry.
        public var token: String

        /// An address on `port` with `token` (a new random one when nil).
        public init(port: UInt16, token: String? = nil) {
            self.port = port
            self.token = token ?? WebGate.newToken()
        }
    }

    /// Why the page could not be served.
    public struct StartFailure: ProblemDescribing, Sendable {
        /// What, why and the fix.
        public let problem: Problem
    }

    private let driver: any AppDriver
    private let drawing: Drawing?
    /// The host's own requests beside the app's events, by path (`/live`): POSTs from the page, answered at once.
    private let actions: [String: Action]

    /// A request of the host's own the page may post (not an app event): called on the server's thread with the body,
    /// it must answer at once (start work elsewhere) with a status and a JSON body.
    public typealias Action = @Sendable (_ body: [UInt8]) -> (status: Int, json: String)
    private let appName: String
    private let streams: EventStreams
    private let events: AsyncStream<Event>
    private let deliver: AsyncStream<Event>.Continuation
    private var server: WebServer?
    /// The address the page is served at, once `start` succeeded (the port the kernel picked, when asked for 0).
    public private(set) var address: Address

    /// A front end for `driver` named `appName` in the page's header, to be served at `address`; a tab that falls
    /// `backlog` bytes behind is dropped. `drawing`, when given, makes the app's dependency graph as SVG for
    /// `/graph.svg` (called once, on the server's thread, when the page first asks for it).
    public init(
        driver: any AppDriver, appName: String, address: Address, backlog: Int = 32 * 1024 * 1024,
        drawing: (@Sendable () -> String?)? = nil, actions: [String: Action] = [:]
    ) {
        self.driver = driver
        self.actions = actions
        self.drawing = drawing.map(Drawing.init)
        streams = EventStreams(backlog: backlog)
        self.appName = appName
        self.address = address
        (events, deliver) = AsyncStream<Event>.makeStream()
    }

    /// Starts serving; the URL to open is `url` afterwards.
    public func start() throws(StartFailure) {
        let streams = streams
        let deliver = deliver
        let drawing = drawing
        let actions = actions
        let gate = Mutex<WebGate?>(nil)
        let server = WebServer { request in
            guard let gate = gate.withLock({ $0 }) else { return .text(503, "starting\n") }
            return Self.answer(
                request, gate: gate, streams: streams, deliver: deliver, drawing: drawing, actions: actions)
        }
        switch server.start(port: address.port) {
        case .listening: break
        case .portRefused:
            throw StartFailure(
                problem: Problem(
                    code: .webPort, subject: "127.0.0.1:\(address.port)",
                    reason: "the app cannot be served there: the port is taken or not allowed",
                    fix: "pick another with --port PORT, or leave --port out for any free one"))
        case .libraryMissing(let reason):
            throw StartFailure(
                problem: .systemLibraryMissing(
                    WebServer.library.soname, package: WebServer.library.package,
                    neededFor: "serving the app to a browser (--ui web)", reason: reason))
        }
        address.port = server.port
        gate.withLock { $0 = WebGate(token: address.token, port: server.port) }
        self.server = server
        streams.broadcast("hello", data: Self.json(Hello(app: appName, graph: drawing != nil)), kind: .opening)
        driver.onUpdate = { [weak self] frame, notices in self?.publish(frame, notices) }
        publish(driver.frame, [])
    }

    /// Sends every tab, now and whenever one connects, the event `name` with `data` (one JSON object), after the
    /// app's introduction: what a page needs beside the frames (the preview gallery's cards, say). With `replacing`,
    /// a tab that connects later gets only the latest `name` event.
    public func introduce(_ name: String, data: String, replacing: Bool = false) {
        streams.broadcast(name, data: data, kind: replacing ? .latest(key: name) : .opening)
    }

    /// The URL to open: the bound address with the token.
    public var url: String { WebGate(token: address.token, port: address.port).url }

    /// How many browser tabs are connected now.
    public var connectedTabs: Int { streams.count }

    /// Hands the page's events to the app, one at a time in the order they came, until a `quit`; keeps idle streams
    /// alive meanwhile. Ends the streams and the server when done.
    public func run() async {
        let keepAlive = Task { [streams] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                streams.keepAlive()
            }
        }
        for await event in events {
            driver.send(event)
            if driver.hasQuit { break }
        }
        keepAlive.cancel()
        stop()
    }

    /// Ends every tab's stream and stops serving.
    public func stop() {
        driver.onUpdate = nil
        deliver.finish()
        streams.endAll()
        server?.stop()
        server = nil
    }

    private var lastFrame: Frame?

    /// Notices that say what the app does from then on, not what just happened: a tab that connects later gets them.
    static let standing: Set<Problem.Code> = [.watching]

    private func publish(_ frame: Frame, _ notices: [Notice]) {
        for notice in notices {
            // A problem is kept for tabs that connect later: those at start (a library that did not load, the crash
            // a supervised restart reports) come before any tab, and a failed build stands until one succeeds. What
            // the app is doing from then on (`Watching: …`) is told to later tabs too; other news only to tabs open.
            let kind: EventStreams.Kind =
                notice.level == .error
                ? .problem(code: notice.code)
                : Self.standing.contains(Problem.Code(rawValue: notice.code)) ? .latest(key: notice.code) : .passing
            streams.broadcast("notice", data: JSONLinesDriver.noticeLine(notice), kind: kind)
            if notice.endsBuildFailure { streams.forget(code: Problem.Code.buildFailed.rawValue) }
        }
        guard frame != lastFrame else { return }
        lastFrame = frame
        streams.broadcast("frame", data: JSONLinesDriver.frameLine(frame), kind: .frame)
    }

    /// The answer to one request, on the server's thread: the gate first, then the page's files, the event stream, an
    /// event posted by the page, the graph's drawing, or one of the host's own requests.
    private nonisolated static func answer(
        _ request: WebRequest, gate: WebGate, streams: EventStreams, deliver: AsyncStream<Event>.Continuation,
        drawing: Drawing?, actions: [String: Action]
    ) -> WebResponse {
        switch gate.check(request) {
        case .refuse(let status, let reason, let fix):
            return .text(status, "refused: \(reason); to fix: \(fix)\n")
        case .admit(let path):
            return .bytes(
                status: 303, mediaType: "text/plain; charset=utf-8", body: Array("opening the app\n".utf8),
                headers: [("Location", path), ("Set-Cookie", gate.cookie)])
        case .pass: break
        }
        switch (request.method, request.path) {
        case ("GET", "/events"):
            return .stream(streams.open())
        case ("GET", "/graph.svg"):
            guard let svg = drawing?.svg else { return .text(404, "this app has no graph to draw\n") }
            return .bytes(status: 200, mediaType: "image/svg+xml", body: Array(svg.utf8), headers: [])
        case ("POST", let path) where actions[path] != nil:
            let answer = actions[path]!(request.body)
            return .bytes(
                status: answer.status, mediaType: "application/json", body: Array(answer.json.utf8), headers: [])
        case ("POST", "/event"):
            switch EventLineParser.parseJSON(String(decoding: request.body, as: UTF8.self)) {
            case .success(let event):
                deliver.yield(event)
                return .bytes(status: 204, mediaType: "text/plain", body: [], headers: [])
            case .failure(let failure):
                let line = JSONLinesDriver.errorLine(
                    code: .badEvent, message: "the posted body is not an event: \(failure.reason)",
                    fix: "post one JSON event, e.g. \(EventLineParser.jsonExample)")
                return .bytes(
                    status: 400, mediaType: "application/json", body: Array(line.utf8), headers: [])
            }
        case ("GET", let path):
            guard let file = PageFiles.byPath[path] else {
                return .text(404, "no page at \(path); to fix: open / \n")
            }
            return .bytes(status: 200, mediaType: file.mediaType, body: file.bytes, headers: [])
        default:
            return .text(405, "\(request.method) \(request.path) is not something this app answers\n")
        }
    }

    /// The first event of every stream: what the page's header names, and whether `/graph.svg` draws the app's graph.
    private struct Hello: Encodable {
        let app: String
        let graph: Bool
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

/// The app's dependency graph drawn once, when first asked for (laying it out starts Graphviz).
private final class Drawing: Sendable {
    private let draw: @Sendable () -> String?
    private let drawn = Mutex<String??>(nil)

    init(_ draw: @escaping @Sendable () -> String?) {
        self.draw = draw
    }

    /// The SVG, drawn on the first call; nil when it could not be drawn.
    var svg: String? {
        drawn.withLock { drawn in
            if let done = drawn { return done }
            let made = draw()
            drawn = .some(made)
            return made
        }
    }
}
