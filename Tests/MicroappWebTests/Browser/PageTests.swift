import Foundation
import MicroappCore
import MicroappSDK
import MicroappWeb
import TestBrowser
import Testing

/// An app that shows the frames a test gives it and records the events the page sends.
@MainActor
final class ScriptedDriver: AppDriver {
    private(set) var frame: Frame
    var onUpdate: ((Frame, [Notice]) -> Void)?
    private(set) var hasQuit = false
    /// Every event the page sent, in order.
    private(set) var received: [Event] = []

    init(_ frame: Frame) {
        self.frame = frame
    }

    func send(_ event: Event) {
        received.append(event)
        if event == .quit { hasQuit = true }
    }

    /// Shows `frame` and `notices` to the front end, as the app does after a change.
    func show(_ frame: Frame, _ notices: [Notice] = []) {
        self.frame = frame
        onUpdate?(frame, notices)
    }
}

/// The page served by a real `WebFrontEnd` on a scripted app, open in the shared Chromium.
@MainActor
struct ServedPage {
    let driver: ScriptedDriver
    let web: WebFrontEnd
    let page: BrowserPage
    private let running: Task<Void, Never>

    static func open(_ frame: Frame, driver: ScriptedDriver? = nil, address: WebFrontEnd.Address? = nil)
        async throws -> ServedPage
    {
        let driver = driver ?? ScriptedDriver(frame)
        let web = WebFrontEnd(driver: driver, appName: "Microapps", address: address ?? .init(port: 0))
        try web.start()
        let running = Task { await web.run() }
        let page = try await Chromium.shared().newPage(web.url)
        try await page.waitFor("the first frame", "document.body.dataset.frames >= 1")
        return ServedPage(driver: driver, web: web, page: page, running: running)
    }

    init(driver: ScriptedDriver, web: WebFrontEnd, page: BrowserPage, running: Task<Void, Never>) {
        self.driver = driver
        self.web = web
        self.page = page
        self.running = running
    }

    /// Waits until the app received `event` (a guard against a hang, not a measure).
    func waitFor(_ event: Event) async throws {
        let deadline = ContinuousClock.now + BrowserPage.patience
        while !driver.received.contains(event) {
            guard ContinuousClock.now < deadline else {
                throw BrowserError("the app never received \(event); it received \(driver.received)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops serving (the page stays open).
    func stop() async {
        web.stop()
        await running.value
    }

    /// Stops serving and closes the page.
    func close() async {
        await stop()
        await page.close()
    }
}

/// A frame of the scripted app `lab`.
func labFrame(
    route: String = "lab://form", title: String = "Every element", _ content: [Element], state: ScreenState = .view,
    busy: String? = nil, depth: Int = 0
) -> Frame {
    Frame(
        feature: "lab", featureName: "Lab", version: 3, route: route,
        screen: Screen(title: title, content: content, state: state, busy: busy), account: "rick@example.com",
        depth: depth,
        tabs: [
            Frame.Tab(id: "tab.lab", title: "Lab", route: "lab://form", selected: true),
            Frame.Tab(id: "tab.other", title: "Other", route: "other://home", selected: false),
        ])
}

let everyElement: [Element] = [
    .text(Text("A headline", style: .headline)), .text(Text("Some body text")),
    .text(Text("A caption", style: .caption)), .text(Text("An error", style: .error)),
    .field(TextField(id: "email", label: "Email", text: "rick@example.com", placeholder: "you@…", error: "Unknown")),
    .field(TextField(id: "password", label: "Password", text: "portal-gun", isSecure: true)),
    .stack(
        Stack(
            .horizontal,
            [
                .button(Button(id: "off", title: "Not now", isEnabled: false)),
                .button(Button(id: "submit", title: "Submit")),
            ])),
    .list(
        ListView(
            id: "rows",
            items: [ListView.Item("Rick", columns: ["Alive", "Human"]), ListView.Item("Morty", columns: ["Alive"])],
            footer: "page 1 of 5", selectedIndex: 1)),
    .stack(Stack(.vertical, [.text(Text("In a column"))])),
]

@Suite("The browser page draws the screen model and sends the person's events (WebFrontEnd, Chromium)")
@MainActor
struct PageTests {
    @Test("every element as the HTML people expect: headings, labelled fields, a password input, a listbox, stacks")
    func everyElementIsDrawn() async throws {
        let served = try await ServedPage.open(labFrame(everyElement, depth: 1))
        let page = served.page
        #expect(
            try await page.value("document.querySelector('#screen-body h2.text-headline').textContent") == "A headline")
        #expect(try await page.value("document.querySelector('.text-caption').textContent") == "A caption")
        #expect(try await page.value("document.querySelector('.text-error').textContent") == "An error")
        let email = "document.querySelector('input[data-id=\"email\"]')"
        #expect(try await page.value("\(email).labels[0].textContent") == "Email")
        #expect(try await page.value("\(email).value") == "rick@example.com")
        #expect(try await page.value("\(email).getAttribute('aria-invalid')") == "true")
        #expect(
            try await page.value("document.getElementById(\(email).getAttribute('aria-describedby')).textContent")
                == "Unknown")
        let password = "document.querySelector('input[data-id=\"password\"]')"
        #expect(try await page.value("\(password).type") == "password")
        #expect(try await page.value("\(password).value") == "", "never filled with the frame's dots")
        #expect(try await page.value("document.querySelector('button[data-id=\"off\"]').disabled") == true)
        #expect(try await page.value("document.querySelectorAll('[role=\"listbox\"] > [role=\"option\"]').length") == 2)
        #expect(
            try await page.value("document.querySelector('[data-key=\"row:rows:1\"]').getAttribute('aria-selected')")
                == "true")
        #expect(try await page.value("document.querySelector('.list-footer').textContent") == "page 1 of 5")
        #expect(
            try await page.value("document.querySelector('[role=\"listbox\"]').getAttribute('aria-label')")
                == "A headline", "named by the headline before it")
        #expect(
            try await page.value("document.querySelector('.stack-horizontal [data-id=\"submit\"]') !== null") == true)
        #expect(try await page.value("document.querySelector('.stack-vertical').textContent") == "In a column")
        // The chrome: the feature's name, the account, the version, Back at depth 1, the tabs.
        #expect(try await page.value("document.getElementById('where').textContent") == "Lab")
        #expect(try await page.value("document.getElementById('who').textContent") == "rick@example.com")
        #expect(try await page.value("document.getElementById('version').textContent") == "v3")
        #expect(try await page.value("document.getElementById('back').hidden") == false)
        let tabs: [String] = try await page.value(
            "[...document.querySelectorAll('[role=\"tab\"]')].map((tab) => tab.textContent + ':' + tab.getAttribute('aria-selected'))"
        )
        #expect(tabs == ["Lab:true", "Other:false"])
        #expect(try await page.cspViolations == [])
        // The check can fail: an inline script is refused by the page's policy, and recorded.
        try await page.run(
            "const script = document.createElement('script'); script.textContent = 'window.__ran = true'; document.body.append(script)"
        )
        try await page.waitFor("the refusal to be recorded", "window.__cspViolations.length > 0")
        #expect(try await page.value("window.__ran === undefined") == true)
        await served.close()
    }

    @Test(
        "in a phone-wide window nothing reaches past its edge: the chrome wraps, a row's columns wrap, every tab shows")
    func narrowWindowFits() async throws {
        let wide = ListView.Item(
            "Abadango Cluster Princess of the Seventh Moon", columns: ["Alive", "Alien", "Abadango", "Episodes: 51"])
        let served = try await ServedPage.open(
            labFrame(
                title: "A title long enough to wrap on a phone-wide window",
                everyElement + [.list(ListView(id: "wide", items: [wide, wide]))], depth: 1))
        let page = served.page
        try await page.resize(width: 390, height: 844)
        try await page.waitFor("the narrow layout", "window.innerWidth === 390")
        #expect(try await page.value("document.documentElement.scrollWidth") <= 390)
        // Every box drawn ends inside the window (the tab list scrolls within its own box, which must fit too).
        let outside: [String] = try await page.value(
            """
            [...document.querySelectorAll('body *')].filter((element) => {
              const box = element.getBoundingClientRect();
              return box.width > 0 && box.right > window.innerWidth + 0.5 && !element.closest('[role="tablist"]');
            }).map((element) => element.tagName + '.' + element.className)
            """)
        #expect(outside == [])
        let tabs: [Bool] = try await page.value(
            "[...document.querySelectorAll('[role=\"tab\"]')].map((tab) => tab.getBoundingClientRect().right <= 390)")
        #expect(tabs == [true, true])
        // A row's columns go under its title instead of off the side.
        let title = "document.querySelector('[data-key=\"row:wide:0\"] .cell-title').getBoundingClientRect()"
        let column =
            "document.querySelector('[data-key=\"row:wide:0\"] .cell:not(.cell-title)').getBoundingClientRect()"
        #expect(try await page.value("\(column).top >= \(title).bottom - 1"))
        await served.close()
    }

    @Test("taps, edits, Enter in a field, rows, Esc, the address bar and tabs reach the app as its events")
    func eventsReachTheApp() async throws {
        let served = try await ServedPage.open(labFrame(everyElement, depth: 1))
        let page = served.page
        try await page.fill("input[data-id=\"email\"]", with: "morty@example.com")
        try await served.waitFor(.action(.input(id: "email", text: "morty@example.com")))
        try await page.press(.enter)
        try await served.waitFor(.action(.tap(id: "submit")))
        #expect(!served.driver.received.contains(.action(.tap(id: "off"))), "Enter skips a disabled button")
        try await page.click("[data-key=\"row:rows:0\"]")
        try await served.waitFor(.action(.select(id: "rows", index: 0)))
        try await page.press(.arrowDown)
        try await page.press(.enter)
        try await served.waitFor(.action(.select(id: "rows", index: 1)))
        try await page.press(.escape)
        try await served.waitFor(.back)
        try await page.fill("#address-input", with: "other://home")
        try await page.press(.enter)
        try await served.waitFor(.open(url: "other://home"))
        try await page.click("button[data-id=\"tab.other\"]")
        try await served.waitFor(.action(.tap(id: "tab.other")))
        // A button held down while the app redraws (here the list's footer changed, nothing moved) is still clicked
        // when let go: the redraw keeps the element pressed.
        let pressed = try await page.pressMouse(on: "button[data-id=\"submit\"]")
        let taps = served.driver.received.filter { $0 == .action(.tap(id: "submit")) }.count
        var redrawn = everyElement
        redrawn[7] = .list(
            ListView(
                id: "rows",
                items: [
                    ListView.Item("Rick", columns: ["Alive", "Human"]), ListView.Item("Morty", columns: ["Alive"]),
                ],
                footer: "page 2 of 5", selectedIndex: 1))
        served.driver.show(labFrame(redrawn, depth: 1))
        try await page.waitFor("the redraw", "document.querySelector('.list-footer').textContent === 'page 2 of 5'")
        try await page.release(at: pressed)
        let deadline = ContinuousClock.now + BrowserPage.patience
        while served.driver.received.filter({ $0 == .action(.tap(id: "submit")) }).count == taps {
            guard ContinuousClock.now < deadline else {
                Issue.record("the button pressed across a redraw was not clicked")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        await served.close()
    }

    @Test("loading, busy, the error panel and an alert that Esc does not close")
    func states() async throws {
        let served = try await ServedPage.open(labFrame(everyElement))
        let page = served.page
        served.driver.show(labFrame(everyElement, state: .loading("Signing in…")))
        try await page.waitFor(
            "the loading screen", "document.querySelector('.loading')?.textContent === 'Signing in…'")
        #expect(try await page.value("document.getElementById('screen').getAttribute('aria-busy')") == "true")
        #expect(try await page.value("document.querySelector('input[data-id=\"email\"]') === null") == true)

        served.driver.show(labFrame(everyElement, busy: "Searching…"))
        try await page.waitFor("the busy line", "document.querySelector('.busy')?.textContent === 'Searching…'")
        #expect(try await page.value("document.querySelector('input[data-id=\"email\"]') !== null") == true)

        let retry = Button(id: "retry", title: "Retry")
        served.driver.show(
            labFrame(everyElement, state: .error(ErrorPanel(title: "No network", message: "Offline", actions: [retry])))
        )
        try await page.waitFor(
            "the error panel", "document.querySelector('[role=\"alert\"] .error-title')?.textContent === 'No network'")
        #expect(
            try await page.value("document.querySelector('.error-panel button[data-id=\"retry\"]') !== null") == true)

        // A long screen scrolled to its end: the alert still comes up in view.
        let rows = (0..<200).map { ListView.Item("Row \($0)") }
        served.driver.show(labFrame([.list(ListView(id: "long", items: rows))]))
        try await page.waitFor("the long list", "document.querySelector('[data-key=\"row:long:199\"]')")
        try await page.run("document.querySelector('[data-key=\"row:long:199\"]').scrollIntoView()")
        let answers = [Button(id: "delete", title: "Delete"), Button(id: "cancel", title: "Cancel")]
        served.driver.show(
            labFrame(
                [.list(ListView(id: "long", items: rows))],
                state: .alert(Alert(title: "Delete?", message: "It cannot be undone.", actions: answers)))
        )
        try await page.waitFor("the alert", "document.getElementById('alert').open")
        #expect(try await page.value("document.getElementById('alert').getAttribute('role')") == "alertdialog")
        #expect(try await page.value("document.getElementById('alert-title').textContent") == "Delete?")
        let inView: Bool = try await page.value(
            "(() => { const box = document.getElementById('alert').getBoundingClientRect(); return box.top >= 0 && box.bottom <= innerHeight && box.height > 0 })()"
        )
        let scrolled: Double = try await page.value(
            "Math.max(document.getElementById('screen').scrollTop, document.getElementById('screen-scroll')?.scrollTop ?? 0)"
        )
        #expect(scrolled > 0, "the screen is scrolled")
        #expect(inView, "the alert is in view on a scrolled screen")
        #expect(
            try await page.value(
                "document.getElementById('screen-body').inert && document.getElementById('chrome').inert") == true)
        #expect(try await page.value("document.activeElement.dataset.id") == "delete")
        try await page.press(.escape)
        #expect(try await page.value("document.getElementById('alert').open") == true)
        try await page.press(.tab)
        try await page.press(.enter)
        try await served.waitFor(.action(.tap(id: "cancel")))
        #expect(!served.driver.received.contains(.back))
        await served.close()
    }

    @Test("a redraw keeps the focused field, its element and what is typed; an unfocused field follows the app")
    func typingSurvivesRedraws() async throws {
        func search(_ text: String, secret: String = "", rows: [String]) -> Frame {
            labFrame(
                route: "lab://search", title: "Search",
                [
                    .field(TextField(id: "query", label: "Query", text: text)),
                    .field(TextField(id: "secret", label: "Secret", text: secret, isSecure: true)),
                    .list(ListView(id: "results", items: rows.map { ListView.Item($0) })),
                ])
        }
        let served = try await ServedPage.open(search("", rows: []))
        let page = served.page
        try await page.fill("input[data-id=\"query\"]", with: "Mor")
        try await page.run("document.activeElement.keptMarker = 'kept'")
        // The app answers an older edit while the person typed on.
        served.driver.show(search("M", rows: ["Morty Smith"]))
        try await page.waitFor("the results", "document.querySelector('[data-key=\"row:results:0\"]')")
        #expect(try await page.value("document.activeElement.keptMarker") == "kept")
        #expect(try await page.value("document.activeElement.value") == "Mor")

        try await page.fill("input[data-id=\"secret\"]", with: "pw")
        served.driver.show(search("Morty", secret: "pw", rows: ["Morty Smith", "Evil Morty"]))
        try await page.waitFor("two results", "document.querySelector('[data-key=\"row:results:1\"]')")
        #expect(try await page.value("document.querySelector('input[data-id=\"query\"]').value") == "Morty")
        #expect(try await page.value("document.querySelector('input[data-id=\"secret\"]').value") == "pw")
        try await page.run("document.activeElement.blur()")
        served.driver.show(search("", secret: "", rows: []))
        try await page.waitFor("the emptied secret", "document.querySelector('input[data-id=\"secret\"]').value === ''")
        #expect(try await page.value("document.querySelector('input[data-id=\"query\"]').value") == "")
        await served.close()
    }

    @Test("the host's chrome: the untrusted mark, notices, a failed build over the screen until built, crash banners")
    func hostChrome() async throws {
        var frame = labFrame(everyElement)
        frame.origin = Frame.Origin(trust: .untrusted, feature: "lurker", library: "/home/me/plugins/libLurker.so")
        let served = try await ServedPage.open(frame)
        let page = served.page
        #expect(
            try await page.value("document.getElementById('origin-mark').textContent")
                == "untrusted · lurker from /home/me/plugins")
        #expect(try await page.value("document.getElementById('where').hidden") == true)
        #expect(
            try await page.value("document.querySelector('.secure-mark').textContent")
                == "untrusted · lurker from /home/me/plugins asks for this")

        served.driver.show(
            frame,
            [
                Notice(
                    level: .error, code: "build-failed", message: "Lab did not build",
                    detail: ["Lab.swift:3:1: error: cannot find 'x' in scope"])
            ])
        try await page.waitFor("the failed build", "!document.getElementById('build-failure').hidden")
        #expect(
            try await page.value("document.getElementById('build-failure-detail').textContent")
                == "Lab.swift:3:1: error: cannot find 'x' in scope")
        #expect(try await page.value("document.querySelector('input[data-id=\"email\"]') !== null") == true)
        frame.version = 4
        served.driver.show(
            frame,
            [
                Notice(
                    level: .info, code: "swapped", message: "Lab swapped v3 → v4 in 12 ms (state kept)", feature: "lab",
                    from: 3, to: 4, milliseconds: 12)
            ])
        try await page.waitFor(
            "the swap notice", "document.getElementById('notice').textContent.includes('Lab swapped v3 → v4')")
        // The notices of an update go out before its frame (WebFrontEnd.publish): the page may show the notice a moment
        // before the new version's frame.
        try await page.waitFor("the new version", "document.getElementById('version').textContent === 'v4'")
        #expect(try await page.value("document.getElementById('build-failure').hidden") == true)

        served.driver.show(
            frame,
            [
                Notice(
                    level: .error, code: "plugin-crashed", message: "Lab crashed (SIGSEGV)",
                    fix: "run `microapp doctor`")
            ])
        try await page.waitFor("the crash banner", "document.querySelector('.banner[data-code=\"plugin-crashed\"]')")
        #expect(
            try await page.value("document.querySelector('.banner').textContent.includes('run `microapp doctor`')")
                == true)

        // A problem with the screen on top comes before its frame, stays with it, and leaves when the route changes.
        served.driver.show(
            frame, [Notice(level: .error, code: "screen-error", message: "Lab has no screen at lab://x")])
        served.driver.show(labFrame(route: "lab://x", title: "No such screen", []))
        try await page.waitForRoute("lab://x")
        #expect(try await page.value("document.querySelector('.banner[data-code=\"screen-error\"]') !== null") == true)
        served.driver.show(labFrame(everyElement))
        try await page.waitForRoute("lab://form")
        #expect(try await page.value("document.querySelector('.banner[data-code=\"screen-error\"]') === null") == true)
        #expect(
            try await page.value("document.querySelector('.banner[data-code=\"plugin-crashed\"]') !== null") == true)
        await served.close()
    }

    @Test("the page says it is reconnecting while the app is gone, and shows the restarted app's frame by itself")
    func reconnects() async throws {
        let first = try await ServedPage.open(labFrame(everyElement))
        let page = first.page
        await first.stop()
        try await page.waitFor("reconnecting", "document.body.dataset.connected === 'false'")
        #expect(try await page.value("document.getElementById('connection').textContent") == "reconnecting…")
        let restarted = ScriptedDriver(labFrame(route: "lab://again", title: "After the restart", []))
        let web = WebFrontEnd(driver: restarted, appName: "Microapps", address: first.web.address)
        try web.start()
        let running = Task { await web.run() }
        try await page.waitFor(
            "the restarted app's frame",
            "document.body.dataset.route === 'lab://again' && document.body.dataset.connected === 'true'")
        #expect(try await page.value("document.getElementById('connection').hidden") == true)
        web.stop()
        await running.value
        await page.close()
    }
}
