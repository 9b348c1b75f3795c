import BenchmarkSupport
import CommandLineSpec
import Foundation
import TestBrowser

// The browser front end measured side by side with the JSON lines front end, in one run, on the same app (Characters
// alone on its mocks, in-process): a person's event to the frame painted in Chromium against an event line to the frame
// line; start to first paint against start to the first frame line; the app's memory with 1 and with 10 tabs open.

let command = CommandSpec(
    "web-benchmark", summary: "the browser front end against the JSON lines front end, side by side",
    options: [
        .value("--rounds", "N", help: "list → detail → list rounds per front end (default 20)"),
        .value("--edits", "N", help: "saves per front end under --watch, edit → new frame (default 6)"),
    ],
    discussion: """
        Runs `microapp solo Characters` twice (--ui web, driven by headless Chromium over the DevTools pipe, and
        --ui json, driven by lines on a pipe) and toggles list → detail → list: each event's time to the frame painted
        (the page's next animation frame after the DOM shows it) and to the frame line. Then, from the repository,
        `solo Characters --watch` in each front end in turn: a save of the list's "Load more" button title (written
        beside and renamed over, as editors save) to the new title painted in the page, and to the frame line that
        has it; the source is restored at the end. Needs chromium, and the repository's own build folder.
        """
)
let parsed = command.parseOrExit(Array(CommandLine.arguments.dropFirst()))
let rounds = positive(parsed, "--rounds", 20)
let edits = positive(parsed, "--edits", 6)

let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
let clock = ContinuousClock()

/// `microapp solo Characters` with `ui`, its stdin and stdout as pipes.
func start(_ ui: String) throws -> PipedProcess {
    try PipedProcess(build + "/microapp", ["solo", "Characters", "--ui", ui, "--no-build", "--isolation", "none"])
}

/// Resident memory of `pid` in MiB.
func residentMiB(_ pid: Int32) -> Double {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ")[safe: 1] ?? "0") ?? 0) / 1024
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// The two events of a round and how each one's frame is known: its route, and not loading.
let toggles: [(event: String, route: String)] = [
    (#"{"type":"select","id":"characters","index":0}"#, "characters://detail/"),
    (#"{"type":"back"}"#, "characters://list"),
]

func isSettledFrame(_ line: String, route: String) -> Bool {
    line.hasPrefix(#"{"type":"frame""#) && line.contains(#""route":"\#(route)"#) && !line.contains(#""type":"loading""#)
}

// MARK: JSON lines

let jsonStart = clock.now
let json = try start("json")
_ = json.nextLine { $0.hasPrefix(#"{"type":"frame""#) }
let jsonFirstFrame = seconds(clock.now - jsonStart) * 1000
var jsonTimes: [Double] = []
for round in 0..<rounds * 2 {
    let toggle = toggles[round % 2]
    let sent = clock.now
    json.send(toggle.event)
    guard json.nextLine(where: { isSettledFrame($0, route: toggle.route) }) != nil else {
        fatalError("the JSON front end ended before showing \(toggle.route)")
    }
    jsonTimes.append(seconds(clock.now - sent) * 1000)
}
let jsonMemory = residentMiB(json.process.processIdentifier)
json.finish()

// MARK: The browser

let browser = try Chromium.shared()
let webStart = clock.now
let web = try start("web")
guard let opening = web.nextLine(where: { $0.hasPrefix("Open http://") }),
    let url = opening.split(separator: " ").dropFirst().first.map(String.init)
else { fatalError("the web front end printed no URL") }
let page = try await browser.newPage(url)
try await page.waitFor("the first frame painted", "document.body.dataset.frames >= 1")
_ = try await page.value(
    "new Promise(resolve => requestAnimationFrame(() => setTimeout(() => resolve(true))))", as: Bool.self)
let webFirstPaint = seconds(clock.now - webStart) * 1000
let oneTab = residentMiB(web.process.processIdentifier)
// Posts the event from the page (as its own code does) and resolves, after the next paint, with the milliseconds
// from the post to the DOM showing the frame.
try await page.run(
    """
    window.benchmarkEvent = (event, route) => new Promise(resolve => {
      const start = performance.now();
      const shown = () => document.body.dataset.route.startsWith(route)
        && document.getElementById('screen').getAttribute('aria-busy') !== 'true';
      const observer = new MutationObserver(() => {
        if (!shown()) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start)));
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      fetch('/event', { method: 'POST', body: event });
    })
    """)
var webTimes: [Double] = []
for round in 0..<rounds * 2 {
    let toggle = toggles[round % 2]
    let literal = BrowserPage.literal(toggle.event)
    webTimes.append(try await page.value("benchmarkEvent(\(literal), '\(toggle.route)')", as: Double.self))
}
var tabs: [BrowserPage] = []
// Each in a browser context of its own (as ten people, or ten browsers, would): one browser profile opens at most six
// connections to one host, and each tab holds one for its event stream.
for _ in 0..<9 {
    let tab = try await browser.newPage(url)
    try await tab.waitFor("a tab's first frame", "document.body.dataset.frames >= 1")
    tabs.append(tab)
}
try await Task.sleep(for: .milliseconds(300))
let tenTabs = residentMiB(web.process.processIdentifier)
for tab in tabs { await tab.close() }
await page.close()
web.process.terminate()
web.process.waitUntilExit()

// MARK: Edit → new frame under --watch

/// The list presenter's source, its button title edited each round.
let repository = URL(fileURLWithPath: build).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let editedFile = repository.appendingPathComponent("Plugins/Characters/Sources/CharacterListPresenter.swift").path
let originalSource = try String(contentsOfFile: editedFile, encoding: .utf8)
let buttonTitle = #"title: "Load more""#
if !originalSource.contains(buttonTitle) {
    fatalError("\(editedFile) has no \(buttonTitle) any more: update web-benchmark's edit")
}
/// Saves the presenter with a new button title, the `count`th (beside, then renamed over), and returns that title.
func saveNewTitle(_ count: Int) throws -> String {
    let title = "Load more \(count)"
    let text = originalSource.replacingOccurrences(of: buttonTitle, with: #"title: "\#(title)""#)
    try text.write(toFile: editedFile, atomically: true, encoding: .utf8)
    return title
}

/// `solo Characters --watch` with `ui`, from the repository's build, once it says it is watching.
func startWatching(_ ui: String) throws -> PipedProcess {
    try PipedProcess(build + "/microapp", ["solo", "Characters", "--watch", "--ui", ui, "--isolation", "none"])
}

/// Milliseconds since the epoch, the clock the page's `performance.timeOrigin + performance.now()` reads.
func epochMilliseconds() -> Double { Date().timeIntervalSince1970 * 1000 }

var webEdits: [Double] = []
var jsonEdits: [Double] = []
var editCount = 0
do {
    defer { try? originalSource.write(toFile: editedFile, atomically: true, encoding: .utf8) }
    // Two turns of each front end, so a slow stretch of the machine hits both; the first save of each app is a
    // warm-up (the watch's shadow build may still be compiling its first time).
    for turn in 0..<2 {
        let watched = try startWatching("web")
        guard let opening = watched.nextLine(where: { $0.hasPrefix("Open http://") }),
            let address = opening.split(separator: " ").dropFirst().first.map(String.init)
        else { fatalError("solo --watch --ui web printed no URL") }
        let tab = try await browser.newPage(address)
        try await tab.waitFor(
            "the list", "document.body.dataset.frames >= 1 && document.body.textContent.includes('Load more')")
        try await tab.waitFor(
            "the watch", "document.getElementById('notice').textContent.includes('Watching')", patience: .seconds(300))
        for round in 0...(edits / 2) {
            let saved = epochMilliseconds()
            editCount += 1
            let title = try saveNewTitle(editCount)
            let painted = try await tab.value(
                """
                new Promise(resolve => {
                  const seen = () => Array.from(document.querySelectorAll('#screen button')).some(b => b.textContent === \(BrowserPage.literal(title)));
                  const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.timeOrigin + performance.now())));
                  if (seen()) return done();
                  const observer = new MutationObserver(() => { if (seen()) { observer.disconnect(); done(); } });
                  observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
                })
                """, as: Double.self)
            if round > 0 { webEdits.append(painted - saved) }
        }
        await tab.close()
        watched.process.terminate()
        watched.process.waitUntilExit()

        let lines = try startWatching("json")
        _ = lines.nextLine { $0.contains(#""code":"watching""#) }
        for round in 0...(edits / 2) {
            let saved = clock.now
            editCount += 1
            let title = try saveNewTitle(editCount)
            guard lines.nextLine(where: { $0.hasPrefix(#"{"type":"frame""#) && $0.contains(#""\#(title)""#) }) != nil
            else { fatalError("solo --watch --ui json ended before drawing \(title)") }
            if round > 0 { jsonEdits.append(seconds(clock.now - saved) * 1000) }
        }
        lines.finish()
        _ = turn
    }
}

// MARK: Report

let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
print("web-benchmark: solo Characters (mocks, in-process), \(rounds * 2) events per front end, load \(load)")
print("")
print(padRight("", 34) + pad("web (Chromium)", 16) + pad("json lines", 14) + pad("ratio", 8))
func row(_ name: String, _ web: Double, _ json: Double) {
    print(
        padRight(name, 34) + pad(fixed(web, 2) + " ms", 16) + pad(fixed(json, 2) + " ms", 14)
            + pad(fixed(web / json, 2) + "×", 8))
}
row("event → frame, p50", percentile(webTimes, 0.5), percentile(jsonTimes, 0.5))
row("event → frame, p90", percentile(webTimes, 0.9), percentile(jsonTimes, 0.9))
row("start → first paint / first frame", webFirstPaint, jsonFirstFrame)
if !webEdits.isEmpty {
    row("edit → new frame (--watch), p50", percentile(webEdits, 0.5), percentile(jsonEdits, 0.5))
    row("edit → new frame (--watch), p90", percentile(webEdits, 0.9), percentile(jsonEdits, 0.9))
}
print("")
print(
    "goal: event → frame painted p50 ≤ 16 ms (one frame at 60 Hz): "
        + (percentile(webTimes, 0.5) <= 16 ? "met" : "not met"))
if !webEdits.isEmpty {
    print(
        "goal: edit → new frame painted p50 ≤ 500 ms (\(webEdits.count) saves per front end): "
            + (percentile(webEdits, 0.5) <= 500 ? "met" : "not met"))
}
print(
    "app memory: json \(fixed(jsonMemory, 1)) MiB · web, 1 tab \(fixed(oneTab, 1)) MiB · web, 10 tabs \(fixed(tenTabs, 1)) MiB"
)
