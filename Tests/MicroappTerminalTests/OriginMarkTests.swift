import Foundation
import MicroappCore
import MicroappSDK
import Testing

@testable import MicroappTerminal

/// The host says whose screen it is: an untrusted feature's screen, and each secure field on it, carry the host's mark
/// in every front end, drawn where and how a feature cannot draw.
@Suite("Origin marks in the three front ends")
struct OriginMarkTests {
    /// An untrusted feature that calls itself Auth and draws a sign-in form.
    static var impostor: Frame {
        var frame = Fixtures.signIn()
        frame.feature = "lurker"
        frame.route = "lurker://verify"
        frame.origin = Frame.Origin(trust: .untrusted, feature: "lurker", library: "/home/me/plugins/libLurker.so")
        return frame
    }

    @Test("the terminal header shows the host's mark in place of the feature's name, in a style of its own")
    func terminalHeader() throws {
        let lines = ScreenLayout(width: 80, height: 24, color: true).lines(
            for: Self.impostor, focus: Focus(), scrollOffset: 0
        )
        .lines
        #expect(lines[0].text.hasPrefix(" Microapps · untrusted · lurker from /home/me/plugins "))
        #expect(!lines[0].text.contains("Auth"))
        let mark = try #require(lines[0].spans.first { $0.text.hasPrefix("untrusted") })
        #expect(mark.style == .untrusted)
        #expect(lines[0].rendered(color: true).contains("\u{1B}[1;7;33muntrusted · lurker"))
    }

    @Test("in the terminal the secure field carries the mark under it; a trusted screen has none")
    func terminalSecureField() {
        let marked = ScreenLayout(width: 80, height: 24, color: false)
            .lines(for: Self.impostor, focus: Focus(), scrollOffset: 0).lines.map(\.text)
        let password = marked.firstIndex { $0.contains("Password:") }
        #expect(password != nil)
        let after = marked.dropFirst((password ?? 0) + 1).prefix(3)
        #expect(after.contains { $0.contains("⚠ untrusted · lurker from /home/me/plugins asks for this") })
        let plain = ScreenLayout(width: 80, height: 24, color: false)
            .lines(for: Fixtures.signIn(), focus: Focus(), scrollOffset: 0).lines.map(\.text)
        #expect(!plain.contains { $0.contains("untrusted") })
    }

    @Test("plain text: the header and the secure field carry the mark")
    func plainText() {
        let text = PlainTextRenderer.render(Self.impostor)
        let lines = text.components(separatedBy: "\n")
        #expect(lines[0].hasPrefix("Microapps · untrusted · lurker from /home/me/plugins "))
        #expect(lines.contains("Password: ••••• (password) [untrusted · lurker from /home/me/plugins]"))
        #expect(lines.contains("Email: rick@example.com (email)"))
        #expect(!PlainTextRenderer.render(Fixtures.signIn()).contains("untrusted"))
    }

    /// The tabbed characters list with an untrusted Lurker tab titled "Settings" appended.
    static var tabbedWithLurker: Frame {
        var frame = Fixtures.tabbed
        frame.tabs.append(
            Frame.Tab(
                id: "tab.lurker", title: "Settings", route: "lurker://home", selected: false,
                origin: Frame.Origin(trust: .untrusted, feature: "lurker", library: "/home/me/plugins/libLurker.so")))
        return frame
    }

    @Test("an untrusted feature's tab carries the host's mark in the terminal tab bar and in plain text")
    func tabMarks() throws {
        let bar = try #require(
            ScreenLayout(width: 100, height: 24, color: true).lines(
                for: Self.tabbedWithLurker, focus: Focus(), scrollOffset: 0
            ).lines.first { $0.text.contains("1 Characters") })
        #expect(bar.text.contains("4 Settings  untrusted "), "\(bar.text)")
        let marks = bar.spans.filter { $0.style == .untrusted }
        #expect(marks.map(\.text) == [" untrusted "], "only the untrusted tab is marked")
        let text = PlainTextRenderer.render(Self.tabbedWithLurker, width: 200)
        #expect(text.contains("Settings (tab.lurker) [untrusted · lurker from /home/me/plugins]"), "\(text)")
        #expect(text.contains("Settings (tab.settings) ·"), "the host's own Settings has no mark")
    }

    @Test("a screen title in the header's words stays the feature's text, under the host's header and its mark")
    func titleImitatingTheHeader() {
        var frame = Self.impostor
        frame.featureName = "Settings"
        frame.screen.title = " Microapps · Settings                                signed out   v1"
        let lines = ScreenLayout(width: 80, height: 24, color: false).lines(for: frame, focus: Focus(), scrollOffset: 0)
            .lines.map(\.text)
        #expect(lines[0].hasPrefix(" Microapps · untrusted · lurker from /home/me/plugins"))
        #expect(lines[1].hasPrefix(" ─"), "the host's rule separates its header from the feature's screen")
        #expect(lines.dropFirst(2).contains { $0.contains("Microapps · Settings") }, "the title is drawn in the body")
        let text = PlainTextRenderer.render(frame).components(separatedBy: "\n")
        #expect(text[0].hasPrefix("Microapps · untrusted · lurker from /home/me/plugins"))
        #expect(!text[0].contains("Settings"))
    }

    @MainActor @Test("JSON: the frame carries the origin as data; a frame without one has no field")
    func json() throws {
        let line = JSONLinesDriver.frameLine(Self.impostor)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let origin = try #require(object["origin"] as? [String: String])
        #expect(origin == ["trust": "untrusted", "feature": "lurker", "library": "/home/me/plugins/libLurker.so"])
        #expect(!JSONLinesDriver.frameLine(Fixtures.signIn()).contains("\"origin\""))
    }
}
