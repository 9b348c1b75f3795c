import BenchmarkSupport
import CommandLineSpec
import Foundation
import TestBrowser

// The browser front end measured side by side with the JSON lines front end, in one run, on the same app (Characters
// alone on its mocks, in-process): a person's event to the frame painted in Chromium against an event line to the frame
// line; start to first paint against start to the first frame line; the app's memory with 1 and with 10 tabs open.

let command = CommandSpec(
    "web-benchmark", summary: "the browser front end against the JSON lines front end, side by side",
    options: [.value("--rounds", "N", help: "list → detail → list rounds per front end (default 20)")],
    discussion: """
        Runs `microapp solo Characters` twice (--ui web, driven by headless Chromium over the DevTools pipe, and
        --ui json, driven by lines on a pipe) and toggles list → detail → list: each event's time to the frame painted
        (the page's next animation frame after the DOM shows it) and to the frame line. Needs chromium.
        """
)
let rounds = positive(command.parseOrExit(Array(CommandLine.arguments.dropFirst())), "--rounds", 20)

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
print("")
print(
    "goal: event → frame painted p50 ≤ 16 ms (one frame at 60 Hz): "
        + (percentile(webTimes, 0.5) <= 16 ? "met" : "not met"))
print(
    "app memory: json \(fixed(jsonMemory, 1)) MiB · web, 1 tab \(fixed(oneTab, 1)) MiB · web, 10 tabs \(fixed(tenTabs, 1)) MiB"
)
