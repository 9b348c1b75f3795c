import MicroappCore
import MicroappSDK

/// Frames the tests draw, and a fake driver that records what front ends send.
enum Fixtures {
    static let signInContent: [Element] = [
        .text(Text("Use the account you created on the web.", style: .caption)),
        .field(TextField(id: "email", label: "Email", text: "rick@example.com", placeholder: "you@example.com")),
        .field(TextField(id: "password", label: "Password", text: "wubba", isSecure: true, error: "Too short")),
        .stack(
            Stack(
                .horizontal,
                [.button(Button(id: "sign-in", title: "Sign in")), .button(Button(id: "cancel", title: "Cancel"))])),
    ]

    static func signIn(state: ScreenState = .view, account: String? = nil, mode: Frame.Mode = .run) -> Frame {
        Frame(
            feature: "auth", featureName: "Auth", version: 1, route: "auth://sign-in",
            screen: Screen(title: "Sign in", content: signInContent, state: state), account: account, mode: mode)
    }

    static let characters = Frame(
        feature: "characters", featureName: "Characters", version: 3, route: "characters://list",
        screen: Screen(
            title: "Characters",
            content: [
                .list(
                    ListView(
                        id: "characters",
                        items: [
                            .init("Rick Sanchez", columns: ["Alive", "Human"]),
                            .init("Morty Smith", columns: ["Alive", "Human"]),
                            .init("Birdperson", columns: ["Dead", "Bird-Person"]),
                        ], footer: "page 1 of 5", selectedIndex: 0)),
                .button(Button(id: "next", title: "Next page")),
            ]), account: "rick@example.com")

    /// The characters list in an app with three tabs, Characters selected.
    static var tabbed: Frame {
        var frame = characters
        frame.tabs = [
            Frame.Tab(id: "tab.characters", title: "Characters", route: "characters://list", selected: true),
            Frame.Tab(id: "tab.search", title: "Search", route: "search://home", selected: false),
            Frame.Tab(id: "tab.settings", title: "Settings", route: "settings://home", selected: false),
        ]
        return frame
    }

    /// A screen much taller than 24 rows: 40 lines of text, then a button.
    static let tall = Frame(
        feature: "about", featureName: "About", version: 2, route: "about://licenses",
        screen: Screen(
            title: "Licenses",
            content: [.button(Button(id: "top", title: "Top"))]
                + (1...40).map { .text(Text("Line \($0)")) } + [.button(Button(id: "bottom", title: "Bottom"))]))
}

/// An app driver that records events and lets the test change the frame.
@MainActor
final class FakeDriver: AppDriver {
    var frame: Frame
    var onUpdate: ((Frame, [Notice]) -> Void)?
    var hasQuit = false
    var sent: [Event] = []
    /// Called for each event after it was recorded: the test's app logic.
    var reaction: ((FakeDriver, Event) -> Void)?

    init(frame: Frame) {
        self.frame = frame
    }

    func send(_ event: Event) {
        sent.append(event)
        if event == .quit { hasQuit = true }
        reaction?(self, event)
    }

    /// Changes the frame and tells the front end, like the runtime does.
    func update(_ frame: Frame, notices: [Notice] = []) {
        self.frame = frame
        onUpdate?(frame, notices)
    }
}

/// Collects the lines a front end writes.
@MainActor
final class LineCollector {
    var lines: [String] = []

    func write(_ line: String) {
        lines.append(line)
    }
}
