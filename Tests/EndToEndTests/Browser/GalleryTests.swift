import Foundation
import TestBrowser
import Testing

@Suite("End to end: the previews as a gallery in a real browser (preview --ui web)")
struct GalleryTests {
    @Test(
        "every preview of a feature is a card, drawn inert, filterable by state, naming the solo command that opens it"
    )
    func everyPreviewIsACard() async throws {
        // What `preview --ui json` draws is what the gallery must show, card for card.
        let lines = try await runToEnd(["preview", "Auth", "--ui", "json", "--no-build"]).out
            .split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        let names = Set(lines.compactMap { $0["name"] as? String })
        let alerts = lines.filter { $0["state"] as? String == "alert" }.count
        #expect(names.count >= 5 && alerts >= 1, "Auth previews: \(names.sorted())")

        let app = try await WebApp.start(["preview", "Auth"])
        let page = try await Chromium.shared().newPage(app.url)
        try await page.waitFor("the cards", "document.querySelectorAll('#gallery .card').length > 0")
        // Without --watch nothing is watched, and nothing is wrong: no problem over the cards.
        #expect(try await page.value("document.getElementById('banners').children.length") == 0)
        let drawn: [String] = try await page.value(
            "Array.from(document.querySelectorAll('#gallery .card')).map(card => card.dataset.name)")
        #expect(Set(drawn) == Set(names.map { "auth/\($0)" }))
        #expect(drawn.count == names.count)
        // A card is a picture of the screen: nothing in it can be focused or reach the app.
        #expect(try await page.value("Array.from(document.querySelectorAll('.card-screen')).every(s => s.inert)"))
        #expect(try await page.value("document.querySelectorAll('.card-screen input[type=password]').length > 0"))
        let solo: String = try await page.value("document.querySelector('.card-solo code').textContent")
        #expect(solo.hasPrefix("microapp solo Auth --open auth://") && solo.hasSuffix("--ui web"))

        // A card opens live: the gallery starts `solo` itself and links the live page, at the card's route.
        let route: String = try await page.value("document.querySelector('#gallery .card .card-route').textContent")
        try await page.click("#gallery .card .card-live")
        let href = try await page.waitFor(selector: "#gallery .card a.card-live-link")
        let live: String = try await page.value("document.querySelector('#gallery .card a.card-live-link').href")
        #expect(live.hasPrefix("http://127.0.0.1:") && live.contains("?token="), "\(href)")
        let livePage = try await Chromium.shared().newPage(live)
        try await livePage.waitForRoute(route, "the card's screen, live on the feature's mocks")
        await livePage.close()
        let livePort = try #require(UInt16(live.split(separator: ":")[2].prefix { $0.isNumber }))

        try await page.run(
            """
            const select = document.querySelector('select[data-filter=state]');
            select.value = 'alert';
            select.dispatchEvent(new Event('change'));
            """)
        let shown: [String] = try await page.value(
            "Array.from(document.querySelectorAll('#gallery .card')).filter(c => !c.hidden).map(c => c.dataset.state)")
        #expect(shown.count == alerts && shown.allSatisfy { $0 == "alert" })
        #expect(
            try await page.value("document.querySelector('.gallery-count').textContent")
                == "\(alerts) of \(names.count) previews")
        #expect(try await app.quit(from: page) == 0)
        // The live app ended with the gallery.
        #expect(throws: (any Error).self) { _ = try LoopbackConnection(port: livePort) }
    }
}
