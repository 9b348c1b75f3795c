import Foundation
import MicroappCore
import MicroappSDK

/// The interactive terminal front end (`--ui terminal`): raw mode on the alternate screen, keys move the focus
/// and send events, the screen is redrawn whenever the app updates. Honours NO_COLOR.
@MainActor
public final class TerminalUI {
    private enum Input {
        case key(Key)
        case tick
        case update([Notice])
        case inputEnded
    }

    private let driver: any AppDriver
    private let color: Bool
    private let noticeDuration: Duration
    private let canvas: TerminalCanvas
    private let clock = ContinuousClock()
    private var focus = Focus()
    private var scrollOffset = 0
    private var preferTop = true
    private var spinnerFrame = 0
    /// The notice in the footer, until when, and the route on screen when it came: it belongs to that screen.
    private var notice: (notice: Notice, until: ContinuousClock.Instant, route: String)?
    /// The last failed build of a watched feature: its errors are boxed over the screen until a build succeeds
    /// or esc hides them.
    private var buildFailure: Notice?
    private var route: String?
    /// Focus and scroll position of screens under this one, to come back to them as they were.
    private var placesByRoute: [String: (focus: Focus, scrollOffset: Int)] = [:]
    /// The account of the frame drawn last: where a person was on each screen is theirs, and a sign-in or sign-out
    /// forgets it (the next person's sign-in form starts at its first field, not where the last one left off).
    private var account: String?
    private var size = (width: 80, height: 24)
    /// The address bar's text while it is open (`:` or ctrl-o), nil when closed.
    private var addressBar: String?
    /// What isolated features printed: shown in place of the screen while `showsLog` (ctrl-l), never over it.
    private var log = FeatureLog()
    private var showsLog = false

    /// Drives `driver`, in colour when `color` (`colorAllowed(environment:)`: unless NO_COLOR is set or TERM is `dumb`).
    public convenience init(driver: any AppDriver, color: Bool, noticeDuration: Duration = .seconds(4)) {
        self.init(driver: driver, color: color, noticeDuration: noticeDuration, output: StandardStreams.write)
    }

    /// Drives `driver`, drawing with `output` (tests pass a collector).
    init(
        driver: any AppDriver, color: Bool, noticeDuration: Duration, output: @escaping (String) -> Void,
        size: (width: Int, height: Int) = (80, 24)
    ) {
        self.driver = driver
        self.color = color
        self.noticeDuration = noticeDuration
        self.canvas = TerminalCanvas(write: output)
        self.size = size
    }

    /// True when stdin and stdout are terminals, so this front end can run (the CLI's default `--ui`).
    public static var isAvailable: Bool { TerminalMode.isInteractive }

    /// False when NO_COLOR is set to something or TERM is `dumb`.
    public static func colorAllowed(environment: [String: String]) -> Bool {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return !noColor && environment["TERM"] != "dumb"
    }

    /// Runs until the person quits (q, Ctrl-C; `.quit` is sent to the driver) or the driver has quit; the
    /// terminal is always restored.
    public func run() async {
        let mode = TerminalMode()
        mode.enter()
        defer { mode.restore() }
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let reader = KeyReader()
        let keys = reader.keys()
        let keyForwarding = Task {
            for await key in keys { continuation.yield(.key(key)) }
            continuation.yield(.inputEnded)
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                continuation.yield(.tick)
            }
        }
        driver.onUpdate = { _, notices in continuation.yield(.update(notices)) }
        defer {
            driver.onUpdate = nil
            reader.stop()
            keyForwarding.cancel()
            ticker.cancel()
        }
        size = TerminalMode.size()
        draw()
        for await input in inputs {
            switch input {
            case .key(let key):
                if !press(key) { return }
            case .tick:
                tick()
            case .update(let notices):
                show(notices)
            case .inputEnded:
                driver.send(.quit)
                return
            }
            if driver.hasQuit { return }
        }
    }

    /// Handles a key and redraws; false when the person quit.
    func press(_ key: Key) -> Bool {
        let frame = driver.frame
        if addressBar != nil { return pressInAddressBar(key) }
        if key == .controlL || showsLog { return pressInLog(key) }
        if key == .escape, buildFailure != nil {
            buildFailure = nil
            draw()
            return true
        }
        let isField =
            if case .field? = focus.focusedID(in: frame.screen).flatMap(frame.screen.element(id:)) { true } else {
                false
            }
        if key == .controlR || (key == .character("R") && !isField) {
            driver.send(.rollback(feature: frame.feature))
            draw()
            return true
        }
        if key == .controlO || (key == .character(":") && !isField) {
            addressBar = ""
            draw()
            return true
        }
        if let tab = Self.tab(for: key, isField: isField, in: frame.tabs) {
            driver.send(.action(.tap(id: tab.id)))
            draw()
            return true
        }
        switch focus.handle(key, on: frame.screen) {
        case .quit:
            driver.send(.quit)
            return false
        case .send(let event):
            driver.send(event)
        case .moved:
            preferTop = true
        case .ignored:
            let page = max(size.height - 6, 1)
            switch key {
            case .down: scrollOffset += 1
            case .up: scrollOffset -= 1
            case .pageDown: scrollOffset += page
            case .pageUp: scrollOffset -= page
            default: return true
            }
            scrollOffset = max(0, scrollOffset)
        }
        draw()
        return true
    }

    /// The tab a key picks: digits 1–9 when no field is focused (a field takes them as text), alt-digit always.
    static func tab(for key: Key, isField: Bool, in tabs: [Frame.Tab]) -> Frame.Tab? {
        let digit: Character
        switch key {
        case .character(let character) where !isField: digit = character
        case .alt(let character): digit = character
        default: return nil
        }
        guard let number = digit.wholeNumberValue, (1...9).contains(number), number <= tabs.count else { return nil }
        return tabs[number - 1]
    }

    /// The address bar takes every key while open: text edits the URL, enter opens it (through the router, so an
    /// unknown route shows the host's problem screen), esc closes it, ctrl-c quits.
    private func pressInAddressBar(_ key: Key) -> Bool {
        let text = addressBar ?? ""
        switch key {
        case .interrupt, .endOfInput:
            driver.send(.quit)
            return false
        case .escape: addressBar = nil
        case .enter:
            addressBar = nil
            let url = text.trimmingCharacters(in: .whitespaces)
            if !url.isEmpty { driver.send(.open(url: url)) }
        case .backspace: addressBar = String(text.dropLast())
        case .character(let character): addressBar = text + String(character)
        default: break
        }
        draw()
        return true
    }

    /// Ctrl-l opens and closes the log; while it is open, esc closes it too, ctrl-c quits, other keys do nothing (the
    /// screen they would act on is not shown).
    private func pressInLog(_ key: Key) -> Bool {
        switch key {
        case .interrupt:
            driver.send(.quit)
            return false
        case .controlL: showsLog.toggle()
        case .escape: showsLog = false
        default: return true
        }
        draw()
        return true
    }

    /// Keeps printed lines in the log; shows the last problem among the other notices (else the last one not meant for
    /// scripts only) in the footer for a while, and redraws.
    func show(_ notices: [Notice]) {
        let notices = log.take(notices)
        for notice in notices {
            if notice.code == Problem.Code.buildFailed.rawValue {
                buildFailure = notice
            } else if notice.endsBuildFailure {
                buildFailure = nil
            }
        }
        if let shown = notices.last(where: { $0.level == .error }) ?? notices.last(where: { !$0.isForScripts }) {
            notice = (shown, clock.now.advanced(by: noticeDuration), driver.frame.route)
        }
        draw()
    }

    /// Every 100 ms: follows the terminal's size, animates the spinner, lets an old notice go.
    private func tick() {
        var changed = false
        let newSize = TerminalMode.size()
        if newSize != size {
            size = newSize
            canvas.invalidate()
            changed = true
        }
        if case .loading = driver.frame.screen.state {
            spinnerFrame += 1
            changed = true
        }
        if let shown = notice, clock.now >= shown.until {
            notice = nil
            changed = true
        }
        if changed { draw() }
    }

    /// Lays the driver's frame out and draws what changed.
    func draw() {
        let frame = driver.frame
        // A notice is about the screen it came with (a problem there, a redirect to it): on another screen it would be
        // read as that screen's.
        if let shown = notice, shown.route != frame.route { notice = nil }
        let accountChanged = frame.account != account
        if accountChanged {
            account = frame.account
            placesByRoute = [:]
        }
        if frame.route != route || accountChanged {
            if let route, !accountChanged { placesByRoute[route] = (focus, scrollOffset) }
            let place = placesByRoute[frame.route]
            focus = place?.focus ?? Focus()
            scrollOffset = place?.scrollOffset ?? 0
            preferTop = place == nil
            route = frame.route
        }
        let layout = ScreenLayout(
            width: size.width, height: size.height, color: color, spinnerFrame: spinnerFrame, notice: notice?.notice,
            preferTop: preferTop, buildFailure: buildFailure, canRollBack: driver.canRollBack(frame.feature),
            addressBar: addressBar, log: showsLog ? log : nil, hasLog: !log.entries.isEmpty)
        let laidOut = layout.lines(for: frame, focus: focus, scrollOffset: scrollOffset)
        scrollOffset = laidOut.scrollOffset
        preferTop = false
        canvas.draw(laidOut.lines.map { $0.rendered(color: color) })
    }
}
