import Foundation
import MicroappCore
import MicroappSDK
import Synchronization
import TestBrowser
import Testing

@testable import MicroappWeb

/// An app that records the events it is sent and shows the frames a test gives it.
@MainActor
final class RecordingApp: AppDriver {
    var frame: Frame
    var onUpdate: ((Frame, [Notice]) -> Void)?
    var hasQuit = false
    var received: [Event] = []

    init(title: String = "Sign in") {
        frame = Self.frame(title)
    }

    func send(_ event: Event) {
        received.append(event)
        if event == .quit { hasQuit = true }
    }

    /// Shows a screen titled `title` (and `notices`).
    func show(_ title: String, notices: [Notice] = []) {
        frame = Self.frame(title)
        onUpdate?(frame, notices)
    }

    static func frame(_ title: String) -> Frame {
        Frame(
            feature: "auth", featureName: "Auth", version: 1, route: "auth://sign-in",
            screen: Screen(
                title: title,
                content: [
                    .field(TextField(id: "password", label: "Password", text: "wubba", isSecure: true)),
                    .button(Button(id: "submit", title: "Sign in")),
                ]))
    }
}

/// The web front end served for real on loopback, driven with plain HTTP requests.
@MainActor
@Suite(.serialized) struct WebFrontEndTests {
    /// A started front end on a free port, its run going on, and its app.
    func served(_ app: RecordingApp = RecordingApp(), backlog: Int = 1 << 20) throws -> (WebFrontEnd, Task<Void, Never>)
    {
        let web = WebFrontEnd(driver: app, appName: "Test App", address: .init(port: 0), backlog: backlog)
        try web.start()
        #expect(web.address.port != 0)
        return (web, Task { await web.run() })
    }

    func cookie(_ web: WebFrontEnd) -> String { "Cookie: microapp-\(web.address.port)=\(web.address.token)" }
    func origin(_ web: WebFrontEnd) -> String { "Origin: http://127.0.0.1:\(web.address.port)" }

    /// Waits (yielding to the front end) until `condition` holds, at most five seconds.
    func eventually(_ condition: () -> Bool) async {
        for _ in 0..<500 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("the printed URL lets the browser in once, then the cookie does; the page comes with its CSP")
    func thePageIsServedWithItsToken() async throws {
        let (web, run) = try served()
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let refused = try await LoopbackConnection.exchange(
            port: port, LoopbackConnection.request("GET", "/", port: port))
        #expect(refused.status == 403 && refused.contains("token"))
        let admitted = try await LoopbackConnection.exchange(
            port: port, LoopbackConnection.request("GET", "/?token=\(web.address.token)", port: port))
        #expect(admitted.status == 303)
        #expect(admitted.contains("Location: /\r\n"))
        #expect(
            admitted.contains("Set-Cookie: microapp-\(port)=\(web.address.token); Path=/; HttpOnly; SameSite=Strict"))
        let page = try await LoopbackConnection.exchange(
            port: port, LoopbackConnection.request("GET", "/", port: port, headers: [cookie(web)]))
        #expect(page.status == 200)
        #expect(page.contains("Content-Security-Policy: default-src 'none'; script-src 'self'"))
        #expect(page.contains("frame-ancestors 'none'"))
        #expect(page.contains("<script src=\"/app.js\""))
        let script = try await LoopbackConnection.exchange(
            port: port, LoopbackConnection.request("GET", "/app.js", port: port, headers: [cookie(web)]))
        #expect(script.status == 200 && script.contains("Content-Type: text/javascript"))
    }

    @Test("a foreign Host is refused (421) even with the cookie, and nothing reaches the app")
    func foreignHostIsRefused() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let body = Array(#"{"type":"tap","id":"submit"}"#.utf8)
        let answer = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request(
                "POST", "/event", port: port, host: "rebound.attacker.example:\(port)",
                headers: [cookie(web), "Origin: http://rebound.attacker.example:\(port)"], bodyLength: body.count),
            body: body)
        #expect(answer.status == 421)
        try await Task.sleep(for: .milliseconds(100))
        #expect(app.received.isEmpty)
    }

    @Test("an event posted from the page reaches the app; one without the page's Origin does not")
    func postedEventsNeedTheirOrigin() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let body = Array(#"{"type":"tap","id":"submit"}"#.utf8)
        let foreign = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request(
                "POST", "/event", port: port, headers: [cookie(web), "Origin: https://attacker.example"],
                bodyLength: body.count), body: body)
        #expect(foreign.status == 403)
        let none = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request("POST", "/event", port: port, headers: [cookie(web)], bodyLength: body.count),
            body: body)
        #expect(none.status == 403)
        let own = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request(
                "POST", "/event", port: port, headers: [cookie(web), origin(web)], bodyLength: body.count),
            body: body)
        #expect(own.status == 204)
        await eventually { !app.received.isEmpty }
        #expect(app.received == [.action(.tap(id: "submit"))])
    }

    @Test("a body that is not an event gets 400 with the fix; one over 64 KiB gets 413 before it is read")
    func badBodiesAreRefused() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let garbage = Array("<script>".utf8)
        let bad = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request(
                "POST", "/event", port: port, headers: [cookie(web), origin(web)], bodyLength: garbage.count),
            body: garbage)
        #expect(bad.status == 400 && bad.contains(#""code":"bad-event""#) && bad.contains("fix"))
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let large = try await LoopbackConnection.exchange(
            port: port,
            LoopbackConnection.request(
                "POST", "/event", port: port, headers: [cookie(web), origin(web)], bodyLength: huge.count),
            body: huge)
        #expect(large.status == 413)
        try await Task.sleep(for: .milliseconds(100))
        #expect(app.received.isEmpty)
    }

    @Test(
        "two tabs get the app's name, the current frame, then every new frame and notice, in order; secrets stay masked"
    )
    func everyTabSeesTheSameFrames() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let tabs = try (0..<2).map { _ in try LoopbackConnection(port: port) }
        for tab in tabs {
            tab.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        }
        for tab in tabs {
            let opening = await tab.read(until: "\"title\":\"Sign in\"")
            #expect(opening.contains("Content-Type: text/event-stream"))
            #expect(opening.contains("event: hello\ndata: {\"app\":\"Test App\",\"graph\":false}\n\n"))
            #expect(opening.contains("event: frame\ndata: {\"type\":\"frame\""))
            #expect(!opening.contains("wubba") && opening.contains("•••••"))
        }
        await eventually { web.connectedTabs == 2 }
        app.show(
            "Welcome", notices: [Notice(level: .info, code: "swapped", message: "Auth swapped v1 → v2")])
        for tab in tabs {
            let later = await tab.read(until: "\"title\":\"Welcome\"")
            let notice = try #require(later.range(of: "event: notice\ndata: {\"type\":\"notice\",\"code\":\"swapped\""))
            let frame = try #require(later.range(of: "\"title\":\"Welcome\""))
            #expect(notice.lowerBound < frame.lowerBound)
        }
    }

    @Test("a tab that never reads is dropped once far behind; the app and the other tab go on")
    func aStalledTabHoldsNothing() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app, backlog: 256 * 1024)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let stalled = try LoopbackConnection(port: port, receiveBuffer: 4096)
        stalled.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        let reader = try LoopbackConnection(port: port)
        reader.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        _ = await reader.read(until: "\"title\":\"Sign in\"")
        await eventually { web.connectedTabs == 2 }
        // Frames of 50 kB until the stalled tab is dropped (at most 400, 20 MB): its socket buffers (a 4 KiB receive
        // buffer, the server's send buffer, a few megabytes on loopback) and then its backlog (256 KiB here) fill,
        // while the reader gets every frame.
        let filler = String(repeating: "x", count: 50_000)
        for index in 0..<400 where web.connectedTabs == 2 {
            app.show("\(index) \(filler)")
            let marker = "\"title\":\"\(index) x"
            let arrived = await reader.read(for: 10, until: marker).contains(marker)
            #expect(arrived, "frame \(index) did not reach the reading tab")
        }
        #expect(web.connectedTabs == 1, "the stalled tab was not dropped")
        app.show("Still here")
        let after = await reader.read(until: "Still here").contains("Still here")
        #expect(after)
    }

    @Test("the graph's drawing is served at /graph.svg to the page only, drawn once however often it is asked for")
    func theGraphIsDrawnOnce() async throws {
        let draws = Mutex(0)
        let web = WebFrontEnd(
            driver: RecordingApp(), appName: "Test App", address: .init(port: 0),
            drawing: {
                draws.withLock { $0 += 1 }
                return "<svg><text>auth v1</text></svg>"
            })
        try web.start()
        let run = Task { await web.run() }
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        let refused = try await LoopbackConnection.exchange(
            port: port, LoopbackConnection.request("GET", "/graph.svg", port: port))
        #expect(refused.status == 403)
        for _ in 0..<3 {
            let drawing = try await LoopbackConnection.exchange(
                port: port, LoopbackConnection.request("GET", "/graph.svg", port: port, headers: [cookie(web)]))
            #expect(drawing.status == 200 && drawing.contains("Content-Type: image/svg+xml"))
            #expect(drawing.contains("<text>auth v1</text>"))
        }
        #expect(draws.withLock { $0 } == 1)
        // The page is told there is a graph to link to.
        let stream = try LoopbackConnection(port: port)
        stream.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        let hello = await stream.read(until: "\n\n")
        #expect(hello.contains(#"event: hello"# + "\n" + #"data: {"app":"Test App","graph":true}"#))
    }

    @Test(
        "a tab that connects late is told the problems posted before it came (not a failed build since fixed) and what the app is doing (watching), not passing news"
    )
    func lateTabsHearOfProblems() async throws {
        let app = RecordingApp()
        let (web, run) = try served(app)
        defer { run.cancel(); web.stop() }
        let port = web.address.port
        app.show(
            "Sign in",
            notices: [
                Notice(level: .error, code: "load-failed", message: "libJunk.so did not load", fix: "rebuild it"),
                Notice(level: .error, code: "build-failed", message: "Characters did not build", fix: "fix it"),
                Notice(level: .info, code: "redirect", message: "sign in first"),
                Notice(level: .info, code: "watching", message: "Watching: saves in Characters rebuild"),
            ])
        let early = try LoopbackConnection(port: port)
        early.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        let first = await early.read(until: "\"title\":\"Sign in\"")
        #expect(first.contains(#""code":"load-failed""#) && first.contains(#""code":"build-failed""#))
        #expect(!first.contains(#""code":"redirect""#), "information is for the tabs open when it happens")
        app.show("Sign in", notices: [Notice(level: .info, code: "built", message: "Characters built")])
        let late = try LoopbackConnection(port: port)
        late.send(Array(LoopbackConnection.request("GET", "/events", port: port, headers: [cookie(web)]).utf8))
        let second = await late.read(until: "\"title\":\"Sign in\"")
        #expect(second.contains(#""code":"load-failed""#))
        #expect(!second.contains(#""code":"build-failed""#))
        #expect(second.contains(#""code":"watching""#) && !second.contains(#""code":"redirect""#))
        #expect(!second.contains(#""code":"built""#), "a build that succeeded is news for the tabs open then")
    }
}
