import Foundation

/// One page (a tab) of the shared `Chromium`: navigate, read the DOM with JavaScript, click, press keys, type, wait for
/// a condition, take a screenshot. Every JavaScript expression runs in the page and may return a promise.
public final class BrowserPage: Sendable {
    /// How long a wait for the page lasts before the test fails: a guard against a hang on a loaded machine, not a
    /// measure.
    public static let patience: Duration = .seconds(60)

    private let browser: Chromium
    private let target: String
    private let session: String
    /// The browser context (cookie jar) the page is in: a sibling page opened in it shares its cookies.
    public let context: String
    private let ownsContext: Bool

    init(browser: Chromium, target: String, session: String, context: String, ownsContext: Bool) {
        self.browser = browser
        self.target = target
        self.session = session
        self.context = context
        self.ownsContext = ownsContext
    }

    /// Turns on what the driver uses.
    func prepare() async throws {
        _ = try await browser.send("Page.enable", session: session)
        _ = try await browser.send("Runtime.enable", session: session)
        // Before any script of the page runs: every Content-Security-Policy violation, for `cspViolations`.
        let recorder = """
            window.__cspViolations = [];
            document.addEventListener('securitypolicyviolation', (event) =>
              window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`));
            """
        _ = try await browser.send("Page.addScriptToEvaluateOnNewDocument", ["source": recorder], session: session)
    }

    /// What the page's Content-Security-Policy refused since it loaded (a blocked inline style, script, fetch…).
    public var cspViolations: [String] {
        get async throws { try await value("window.__cspViolations ?? []") }
    }

    /// Another tab in the same browser context (the same cookies), showing `url`.
    public func sibling(_ url: String) async throws -> BrowserPage {
        try await browser.newPage(url, context: context)
    }

    /// Loads `url` and waits until its document has loaded.
    public func navigate(_ url: String) async throws {
        let answer = try await browser.send("Page.navigate", ["url": url], session: session)
        if let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let failure = object["errorText"] as? String
        {
            throw BrowserError("chromium could not open \(url): \(failure)")
        }
        // Until the navigation commits, the old about:blank answers, complete.
        try await waitFor(
            "the document of \(url) to load", "location.href !== 'about:blank' && document.readyState === 'complete'")
    }

    /// Draws the page as a window `width` × `height` CSS pixels wide would (a phone: 390 × 844).
    public func resize(width: Int, height: Int) async throws {
        _ = try await browser.send(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false], session: session)
    }

    /// Closes the tab (and its browser context when the page made its own).
    public func close() async {
        _ = try? await browser.send("Target.closeTarget", ["targetId": target])
        if ownsContext { _ = try? await browser.send("Target.disposeBrowserContext", ["browserContextId": context]) }
    }

    // MARK: JavaScript

    /// The value of `expression` (awaited when it is a promise), decoded from its JSON form.
    public func value<Value: Decodable & Sendable>(_ expression: String, as type: Value.Type = Value.self)
        async throws -> Value
    {
        let wrapped = "(async () => JSON.stringify(await (\(expression)) ?? null))()"
        let answer = try await browser.send(
            "Runtime.evaluate", ["expression": wrapped, "awaitPromise": true, "returnByValue": true], session: session)
        let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any]
        if let exception = object?["exceptionDetails"] as? [String: Any] {
            let thrown = (exception["exception"] as? [String: Any])?["description"] as? String
            throw BrowserError(
                "the page threw evaluating \(expression): \(thrown ?? exception["text"] as? String ?? "")")
        }
        guard let json = (object?["result"] as? [String: Any])?["value"] as? String else {
            throw BrowserError("the page gave no value for \(expression)")
        }
        return try JSONDecoder().decode(Value.self, from: Data(json.utf8))
    }

    /// Runs `statement` in the page.
    public func run(_ statement: String) async throws {
        _ = try await value("(async () => { \(statement); return true })()", as: Bool.self)
    }

    /// The text the page shows (`document.body.innerText`).
    public var text: String {
        get async throws { try await value("document.body ? document.body.innerText : ''") }
    }

    /// Waits until `condition` (a JavaScript expression) is true; fails after `patience` naming `what` it waited for
    /// and what the page showed.
    public func waitFor(_ what: String, _ condition: String, patience: Duration = BrowserPage.patience) async throws {
        let deadline = ContinuousClock.now + patience
        while true {
            if (try? await value("Boolean(\(condition))", as: Bool.self)) == true { return }
            guard ContinuousClock.now < deadline else {
                let shown = (try? await text) ?? "(the page's text could not be read)"
                throw BrowserError(
                    "waited \(patience) for \(what) (\(condition)); the page shows:\n\(shown.prefix(4000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until `selector` matches an element; its text.
    @discardableResult
    public func waitFor(selector: String, patience: Duration = BrowserPage.patience) async throws -> String {
        let query = "document.querySelector(\(Self.literal(selector)))"
        try await waitFor("an element \(selector)", query, patience: patience)
        return try await value("\(query).textContent")
    }

    // MARK: Input, as a person gives it

    /// Clicks the middle of the first element `selector` matches, scrolled into view, with the mouse.
    public func click(_ selector: String) async throws {
        try await release(at: try await pressMouse(on: selector))
    }

    /// Presses the mouse button on the middle of the first element `selector` matches (scrolled into view) and
    /// holds it; the point pressed, for `release(at:)`.
    public func pressMouse(on selector: String) async throws -> [Double] {
        try await waitFor(selector: selector)
        let point = try await value(
            """
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              element.scrollIntoView({ block: 'center', inline: 'center' });
              const box = element.getBoundingClientRect();
              return [box.left + box.width / 2, box.top + box.height / 2];
            })()
            """, as: [Double].self)
        try await mouse("mouseMoved", at: point)
        try await mouse("mousePressed", at: point)
        return point
    }

    /// Releases the mouse button at `point`.
    public func release(at point: [Double]) async throws {
        try await mouse("mouseReleased", at: point)
    }

    private func mouse(_ type: String, at point: [Double]) async throws {
        var event: [String: any Sendable] = ["type": type, "x": point[0], "y": point[1]]
        if type != "mouseMoved" { event.merge(["button": "left", "clickCount": 1]) { $1 } }
        _ = try await browser.send("Input.dispatchMouseEvent", event, session: session)
    }

    /// A key the driver can press.
    public enum Key: String, Sendable {
        case enter = "Enter"
        case tab = "Tab"
        case escape = "Escape"
        case arrowDown = "ArrowDown"
        case arrowUp = "ArrowUp"
        case space = " "
        case backspace = "Backspace"

        var code: (code: String, keyCode: Int, text: String?) {
            switch self {
            case .enter: ("Enter", 13, "\r")
            case .tab: ("Tab", 9, nil)
            case .escape: ("Escape", 27, nil)
            case .arrowDown: ("ArrowDown", 40, nil)
            case .arrowUp: ("ArrowUp", 38, nil)
            case .space: ("Space", 32, " ")
            case .backspace: ("Backspace", 8, nil)
            }
        }
    }

    /// Presses and releases `key` (with shift when asked), as the keyboard does: to whatever has focus.
    public func press(_ key: Key, shift: Bool = false) async throws {
        let (code, keyCode, text) = key.code
        var down: [String: any Sendable] = [
            "type": text == nil ? "rawKeyDown" : "keyDown", "key": key.rawValue, "code": code,
            "windowsVirtualKeyCode": keyCode, "nativeVirtualKeyCode": keyCode, "modifiers": shift ? 8 : 0,
        ]
        if let text { down["text"] = text }
        _ = try await browser.send("Input.dispatchKeyEvent", down, session: session)
        down["type"] = "keyUp"
        down["text"] = nil
        _ = try await browser.send("Input.dispatchKeyEvent", down, session: session)
    }

    /// Types `text` into what has focus, one character at a time (each an `input` event, as a person's keystrokes).
    public func type(_ text: String) async throws {
        for character in text {
            _ = try await browser.send("Input.insertText", ["text": String(character)], session: session)
        }
    }

    /// Clicks the element `selector` matches, selects what it holds, then types `text` over it (an empty `text`
    /// deletes it with Backspace).
    public func fill(_ selector: String, with text: String) async throws {
        try await click(selector)
        try await run("document.querySelector(\(Self.literal(selector))).select()")
        if text.isEmpty { try await press(.backspace) } else { try await type(text) }
    }

    // MARK: Pictures

    /// A PNG of the page as shown (the window's size).
    public func screenshot() async throws -> Data {
        let answer = try await browser.send(
            "Page.captureScreenshot", ["format": "png", "captureBeyondViewport": false], session: session)
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let base64 = object["data"] as? String, let png = Data(base64Encoded: base64)
        else { throw BrowserError("chromium sent no screenshot") }
        return png
    }

    /// `text` as a JavaScript string literal.
    public static func literal(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
