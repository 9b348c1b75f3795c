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
}
