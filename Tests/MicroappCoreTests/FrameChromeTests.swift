import Foundation
import MicroappCore
import Testing

@MainActor
@Suite("What a frame says about the app around the screen")
struct FrameChromeTests {
    @Test("a frame names the app, and an app whose container holds no session says it has no accounts")
    func appNameAndNoAccounts() {
        let frame = LinkedApp(StatelessV1.self, open: "counter://home").runtime.frame
        #expect(frame.app == "Microapps")
        #expect(frame.hasAccounts == false)
        #expect(frame.account == nil)
        let json = String(decoding: (try? JSONEncoder().encode(frame)) ?? Data(), as: UTF8.self)
        #expect(json.contains(#""app":"Microapps""#) && json.contains(#""hasAccounts":false"#), "\(json)")
    }

    @Test("a host's notices say its own command, and a feature's printed lines are left as they are")
    func noticesSpeakTheHostsName() async {
        var options = AppRuntime.Options(now: { .now })
        options.spoken = { $0.replacingOccurrences(of: "`microapp ", with: "`hello-host ") }
        let app = LinkedApp(StatelessV1.self, open: "counter://home", options: options)
        app.runtime.send(.rollback(feature: "counter"))
        app.runtime.announce([Notice(level: .info, code: Notice.logCode, message: "`microapp run` said the feature")])
        for _ in 0..<10_000 where app.notices.count < 2 { await Task.yield() }
        let rollback = app.notices.first { $0.code == "no-previous-version" }
        #expect(rollback?.fix == "rollback works after a hot swap (`hello-host run --watch`)", "\(app.notices)")
        #expect(app.notices.first { $0.code == Notice.logCode }?.message == "`microapp run` said the feature")
    }
}
