import Foundation
import TestBrowser
import Testing

/// The real `microapp` serving the app with `--ui web`, opened in the test process's one Chromium.
struct WebApp {
    let process: AppProcess
    /// The URL the app printed, with its token.
    let url: String

    /// Starts `microapp` with `arguments` plus `--ui web --port 0` and reads the URL it prints.
    static func start(_ arguments: [String]) async throws -> WebApp {
        let process = try AppProcess(arguments + ["--ui", "web", "--port", "0"])
        let prefix = "Open http://127.0.0.1:"
        try await process.waitUntil { process.lines.contains { $0.hasPrefix(prefix) } }
        let line = try #require(process.lines.first { $0.hasPrefix(prefix) })
        let url = try #require(line.split(separator: " ").dropFirst().first.map(String.init))
        return WebApp(process: process, url: url)
    }

    /// A new tab of its own (its own cookies) on the printed URL, once it shows a frame.
    func open() async throws -> BrowserPage {
        let page = try await Chromium.shared().newPage(url)
        try await page.waitFor("the first frame", "document.body.dataset.frames >= 1")
        return page
    }

    /// The app's address without the token (`http://127.0.0.1:PORT/`): a tab that has the cookie needs nothing more.
    var origin: String { String(url.prefix { $0 != "?" }) }

    /// Posts `quit` from `page` and waits for the app's exit code.
    func quit(from page: BrowserPage) async throws -> Int32 {
        // The app may stop before its answer is out: the fetch's outcome says nothing, the exit code does.
        try await page.run(
            "await fetch('/event', { method: 'POST', body: JSON.stringify({ type: 'quit' }) }).catch(() => {})")
        await page.close()
        return try await process.finish()
    }
}

@Suite("End to end: the demo app in a real browser (--ui web, Chromium over the DevTools pipe)")
struct BrowserJourneyTests {
    @Test(
        "sign up, list, load more, detail, search and recent searches, settings and its alert, sign out, an empty sign-in, two tabs on one app"
    )
    func wholeJourney() async throws {
        let app = try await WebApp.start(["run", "--data", AppProcess.freshDataDirectory()])
        let page = try await app.open()
        try await page.waitForRoute(
            "auth://select", where: "document.getElementById('who').textContent === 'signed out'")
        #expect(try await page.value("document.getElementById('app-name').textContent") == "Microapps")
        // The host links its drawing of the app's graph (Graphviz's SVG): each feature is in it.
        #expect(try await page.value("!document.getElementById('graph-link').hidden"))
        let drawing: String = try await page.value("fetch('/graph.svg').then(answer => answer.text())")
        #expect(drawing.contains("<svg") && drawing.contains(">characters v1"), "\(drawing.prefix(300))")

        // Sign up, by keyboard in the form: Enter in the last field taps the button after it.
        try await page.click(BrowserPage.element("sign-up", "button"))
        try await page.waitForRoute("auth://sign-up", where: "document.querySelector('input[data-id=\"confirm\"]')")
        let email = "summer@example.com"
        try await page.fill(BrowserPage.element("name", "input"), with: "Summer Smith")
        try await page.fill(BrowserPage.element("email", "input"), with: email)
        try await page.fill(BrowserPage.element("password", "input"), with: "shiny-and-new")
        try await page.fill(BrowserPage.element("confirm", "input"), with: "shiny-and-new")
        #expect(try await page.value("document.querySelector('input[data-id=\"password\"]').type") == "password")
        #expect(try await page.value("document.querySelector('input[data-id=\"password\"]').value") == "shiny-and-new")
        let labelled: Bool = try await page.value(
            "[...document.querySelectorAll('#screen input')].every((input) => input.labels.length === 1)")
        #expect(labelled)
        try await page.press(.enter)
        try await page.waitForRoute(
            "characters://list", "the first page",
            where: "document.querySelector('.list-footer')?.textContent.includes('page 1 of')")
        #expect(try await page.value("document.getElementById('who').textContent") == email)
        let tabs: [String] = try await page.value(
            "[...document.querySelectorAll('#tablist [role=\"tab\"]')].map((tab) => tab.dataset.id + (tab.getAttribute('aria-selected') === 'true' ? '*' : ''))"
        )
        #expect(tabs.contains("tab.characters*") && tabs.contains("tab.search") && tabs.contains("tab.settings"))
        #expect(try await page.value("document.querySelector('[role=\"listbox\"] [role=\"option\"]') !== null") == true)

        // Load more: the button keeps the focus across the loading screen and the longer list.
        try await page.click(BrowserPage.element("more", "button"))
        try await page.waitForRoute(
            "characters://list", "the second page",
            where: "document.querySelector('.list-footer')?.textContent.includes('page 2 of')")
        try await page.waitFor("the focus back on Load more", "document.activeElement?.dataset.id === 'more'")

        // A row by keyboard: focus it, Enter chooses it.
        try await page.run("document.querySelector('[data-key=\"row:characters:12\"]').focus()")
        try await page.press(.enter)
        try await page.waitFor(
            "the detail of row 12",
            "document.body.dataset.route === 'characters://detail/13' && \(BrowserPage.screenHas("Episodes"))")
        #expect(try await page.value("document.getElementById('back').hidden") == false)

        // Search from its tab; a result, Esc back, then the recent searches.
        try await page.click(BrowserPage.element("tab.search", "button"))
        try await page.waitForRoute("search://home", where: "document.querySelector('input[data-id=\"query\"]')")
        try await page.fill(BrowserPage.element("query", "input"), with: "Morty")
        try await page.waitForRoute("search://home", "Morty's result", where: BrowserPage.screenHas("Morty Smith"))
        try await page.click("[data-key^=\"row:results:\"]")
        try await page.waitFor(
            "Morty's detail",
            "document.body.dataset.route.startsWith('characters://detail/') && \(BrowserPage.screenHas("Morty"))")
        try await page.press(.escape)
        try await page.waitForRoute("search://home")
        try await page.fill(BrowserPage.element("query", "input"), with: "")
        try await page.waitForRoute(
            "search://home", "the recent searches",
            where: BrowserPage.screenHas("Recent searches") + " && " + BrowserPage.screenHas("Morty"))

        // Settings through the address bar; its alert needs an answer: Esc leaves it open.
        try await page.fill("#address-input", with: "settings://home")
        try await page.press(.enter)
        try await page.waitForRoute("settings://home", where: BrowserPage.screenHas(email))
        try await page.click(BrowserPage.element("delete-account", "button"))
        try await page.waitFor("the alert", "document.getElementById('alert').open")
        try await page.press(.escape)
        #expect(try await page.value("document.getElementById('alert').open") == true)
        #expect(try await page.value("document.body.dataset.route") == "settings://home")
        #expect(try await page.value("document.getElementById('screen-body').inert") == true)
        #expect(try await page.value("document.getElementById('alert').contains(document.activeElement)") == true)

        // A second tab on the same app shows the same frame, and follows what the first does.
        let second = try await page.sibling(app.origin)
        try await second.waitForRoute("settings://home", where: "document.getElementById('alert').open")
        try await page.click(BrowserPage.element("cancel-delete", "button"))
        try await page.waitFor("the alert closed", "!document.getElementById('alert').open")
        try await second.waitFor("the alert closed in the second tab", "!document.getElementById('alert').open")
        try await page.waitFor(
            "the focus back on the button that asked", "document.activeElement?.dataset.id === 'delete-account'")

        // Sign out from the second tab; the next sign-in starts empty and goes home.
        try await second.click(BrowserPage.element("sign-out", "button"))
        try await page.waitForRoute(
            "auth://select", where: "document.getElementById('who').textContent === 'signed out'")
        await second.close()
        try await page.click(BrowserPage.element("sign-in", "button"))
        try await page.waitForRoute("auth://sign-in", where: "document.querySelector('input[data-id=\"email\"]')")
        let values: [String] = try await page.value(
            "[...document.querySelectorAll('#screen input')].map((input) => input.value)")
        #expect(values.allSatisfy { $0.isEmpty }, "\(values)")
        try await page.fill(BrowserPage.element("email", "input"), with: email)
        try await page.fill(BrowserPage.element("password", "input"), with: "shiny-and-new")
        try await page.click(BrowserPage.element("submit", "button"))
        try await page.waitForRoute(
            "characters://list", where: "document.getElementById('who').textContent === \(BrowserPage.literal(email))")

        #expect(try await page.cspViolations == [])
        #expect(try await app.quit(from: page) == 0)
    }
}

/// The hostile strings fixture: an out-of-tree (untrusted) feature whose every string tries to be more than text.
enum HostileStringsFixture {
    /// What a payload that ran would set.
    static let tripwire = "__microappOwned"

    static let source = """
        import MicroappSDK

        let owned = "window.\(tripwire) = true"
        let huge = String(repeating: "W", count: 1_000_000)

        public enum Marquee: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(
                    id: "marquee", version: 1, displayName: "Microapps · Settings <img src=x onerror=\\"\\(owned)\\">",
                    routes: [RouteDeclaration("marquee://home")])
            }

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { MarqueeRoot() }
        }

        @MainActor final class MarqueeRoot: Root {
            func screen(at location: Location) -> Screen {
                Screen(
                    title: "Microapps · Settings   rick@example.com   v1",
                    content: [
                        .text(Text("<script>\\(owned)</script>", style: .headline)),
                        .text(Text("<img src=x onerror=\\"\\(owned)\\">")),
                        .text(Text("javascript:\\(owned)", style: .caption)),
                        .text(Text("\\u{202E}txt.exe — reversed", style: .error)),
                        .button(Button(id: "go", title: "<b onmouseover=\\"\\(owned)\\">Go</b>")),
                        .field(TextField(id: "secret", label: "<label>javascript:\\(owned)</label>", placeholder: "\\u{202E}drowssap", isSecure: true)),
                        .list(ListView(id: "rows", items: [ListView.Item("<a href=\\"javascript:\\(owned)\\">row</a>", columns: ["\\u{202E}evil", "<iframe src=\\"javascript:\\(owned)\\">"])], footer: "<svg onload=\\"\\(owned)\\">")),
                        .button(Button(id: "huge", title: huge)),
                    ])
            }

            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(Marquee.self)
        }
        """
}

@Suite("End to end: a hostile feature's strings in the browser")
struct BrowserHostileStringsTests {
    @Test("markup, javascript: URLs, a right-to-left override, a 1 MB label and a fake chrome are inert text")
    func hostileStringsAreText() async throws {
        let plugins = try await compilePlugin(module: "Marquee", source: HostileStringsFixture.source)
        let app = try await WebApp.start([
            "run", "--plugins", plugins.path, "--open", "marquee://home", "--data", AppProcess.freshDataDirectory(),
        ])
        let page = try await app.open()
        try await page.waitForRoute("marquee://home", where: "document.querySelector('[data-id=\"huge\"]')")

        // Shown as the feature wrote it, character for character, and nothing ran.
        let texts: [String] = try await page.value(
            "[...document.querySelectorAll('#screen-body .text')].map((text) => text.textContent)")
        #expect(texts.first == "<script>window.\(HostileStringsFixture.tripwire) = true</script>")
        #expect(texts.contains("\u{202E}txt.exe — reversed"))
        #expect(try await page.value("window.\(HostileStringsFixture.tripwire) === undefined") == true)
        // The host's own link to its graph drawing (#graph-link) is the page's one anchor; nothing a feature wrote is.
        let foreign: [String] = try await page.value(
            "[...document.querySelectorAll('body img, body iframe, body svg, body a:not(#graph-link), body b, body script, #screen label:not(.field-label)')].map((element) => element.outerHTML.slice(0, 200))"
        )
        #expect(foreign.isEmpty, "\(foreign)")
        #expect(
            try await page.value(
                "document.body.querySelectorAll('[href]:not(#graph-link), [src], [onerror], [onload], [onmouseover]').length"
            ) == 0)
        let huge: Int = try await page.value("document.querySelector('[data-id=\"huge\"]').textContent.length")
        #expect(huge == 1_000_000)

        // The host's chrome stays the host's: the untrusted mark in the header, the fake one only in the content.
        let mark: String = try await page.value("document.getElementById('origin-mark').textContent")
        #expect(mark.hasPrefix("untrusted · marquee from /"), "\(mark)")
        #expect(
            try await page.value("document.getElementById('chrome').contains(document.getElementById('screen-title'))")
                == false)
        #expect(
            try await page.value("document.getElementById('screen-title').textContent")
                == "Microapps · Settings   rick@example.com   v1")
        let chromeHeight: Double = try await page.value(
            "document.getElementById('chrome').getBoundingClientRect().height")
        #expect(chromeHeight < 200)
        let secureMark: String = try await page.value("document.querySelector('.secure-mark')?.textContent ?? ''")
        #expect(secureMark.contains("untrusted · marquee from"))

        // Hovering and clicking what looks like a link or a tag runs nothing either.
        try await page.click(BrowserPage.element("go", "button"))
        try await page.click("[data-key=\"row:rows:0\"]")
        #expect(try await page.value("window.\(HostileStringsFixture.tripwire) === undefined") == true)
        #expect(try await page.cspViolations == [])
        #expect(try await app.quit(from: page) == 0)
    }
}
