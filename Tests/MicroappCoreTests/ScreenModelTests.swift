import Foundation
import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Screen model")
struct ScreenModelTests {
    static let screen = Screen(
        title: "Sign in",
        content: [
            .text(Text("Welcome back", style: .headline)),
            .stack(
                Stack(
                    .vertical,
                    [
                        .field(TextField(id: "email", label: "Email", text: "rick@example.com")),
                        .field(TextField(id: "password", label: "Password", isSecure: true, error: "Too short")),
                    ])),
            .list(
                ListView(
                    id: "rows", items: [ListView.Item("Rick", columns: ["Alive", "Human"])], footer: "page 1 of 1")),
            .button(Button(id: "submit", title: "Sign in")),
        ],
        state: .alert(Alert(title: "Oops", message: "Wrong password", actions: [Button(id: "dismiss", title: "OK")])))

    @Test("a screen survives a JSON round trip in every state", .offThePool)
    func roundTrip() throws {
        let states: [ScreenState] = [
            .view, .loading("Signing in…"), Self.screen.state,
            .error(ErrorPanel(title: "Down", message: "Try later", actions: [Button(id: "retry", title: "Retry")])),
        ]
        for state in states {
            var screen = Self.screen
            screen.state = state
            let data = try JSONEncoder().encode(screen)
            #expect(try JSONDecoder().decode(Screen.self, from: data) == screen)
        }
    }

    @Test("elements and states are tagged with a type in JSON", .offThePool)
    func taggedJSON() throws {
        let json = String(decoding: try JSONEncoder().encode(Self.screen), as: UTF8.self)
        #expect(json.contains(#""type":"field""#))
        #expect(json.contains(#""type":"alert""#))
        #expect(json.contains(#""isSecure":true"#))
    }

    @Test("an unknown element type is refused when decoding", .offThePool)
    func unknownType() {
        let json = #"{"title":"x","content":[{"type":"slider","id":"s"}],"state":{"type":"view"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Screen.self, from: Data(json.utf8)) }
    }

    @Test("interactive elements are listed depth first with the alert's actions last", .offThePool)
    func interactiveOrder() {
        #expect(Self.screen.interactiveElements.compactMap(\.id) == ["email", "password", "rows", "submit", "dismiss"])
        #expect(Self.screen.element(id: "password") != nil)
    }

    @Test(
        "a person reaches the content in view, only the panel's actions over it, and nothing while loading", .offThePool
    )
    func reachable() {
        var screen = Self.screen
        #expect(screen.reachableElements.compactMap(\.id) == ["dismiss"])
        screen.state = .view
        #expect(screen.reachableElements.compactMap(\.id) == ["email", "password", "rows", "submit"])
        screen.state = .loading("Signing in…")
        #expect(screen.reachableElements.isEmpty)
        screen.state = .error(
            ErrorPanel(title: "Down", message: "Later", actions: [Button(id: "retry", title: "Retry")]))
        #expect(screen.reachableElements.compactMap(\.id) == ["retry"])
    }

    @Test("driver events decode from the JSON lines of the CLI contract", .offThePool)
    func events() throws {
        let lines = [
            #"{"type":"tap","id":"submit"}"#, #"{"type":"input","id":"email","text":"a@b.c"}"#,
            #"{"type":"select","id":"rows","index":2}"#, #"{"type":"back"}"#,
            #"{"type":"open","url":"characters://list"}"#, #"{"type":"quit"}"#,
        ]
        let events = try lines.map { try JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
        #expect(
            events == [
                .action(.tap(id: "submit")), .action(.input(id: "email", text: "a@b.c")),
                .action(.select(id: "rows", index: 2)), .back, .open(url: "characters://list"), .quit,
            ])
        for event in events {
            #expect(try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event)) == event)
        }
    }
}
