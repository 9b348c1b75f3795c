import Foundation
import TestBrowser
import Testing

/// `preview --ui web --watch` as a feature team works with it: a save in a feature's sources redraws its cards, a
/// build that fails shows over them, and a card opens live on the mock variants its screen was reached on.
@Suite("End to end: the gallery under --watch, in a real browser")
struct GalleryWatchTests {
    /// The file holding the list's error title.
    static let listSource = "Plugins/Characters/Sources/CharacterListPresenter.swift"
    static let title = #"title: "Could not load characters""#

    @Test(
        "a saved source redraws the rebuilt feature's cards with the filter kept; a failing build shows over them; a card opens live on its mocks"
    )
    func savedSourceRedrawsTheCards() async throws {
        // A copy: the test edits sources and builds, which must touch neither this repository nor its build lock.
        try await RepositoryCopy.using { try await watchTheGallery(in: $0) }
    }

    private func watchTheGallery(in copy: RepositoryCopy) async throws {
        let plugins = try await copy.build(product: "Characters", timeout: .seconds(600))
        let app = try await WebApp.start(["preview", "Characters", "--watch", "--plugins", plugins.path, "--no-build"])
        let page = try await Chromium.shared().newPage(app.url)
        try await page.waitFor("the cards", "document.querySelectorAll('#gallery .card').length > 0")
        try await page.waitFor("the watch", "document.getElementById('notice').textContent.includes('Watching')")

        // The list's error card was reached on a failing mock: its command and its live app say so.
        let errorCard = "#gallery .card[data-name='characters/list.error']"
        let solo: String = try await page.value("document.querySelector(\"\(errorCard) .card-solo code\").textContent")
        #expect(solo.contains("--mock characters.page=failing"), "\(solo)")
        try await page.click("\(errorCard) .card-live")
        _ = try await page.waitFor(selector: "\(errorCard) a.card-live-link")
        let live: String = try await page.value("document.querySelector(\"\(errorCard) a.card-live-link\").href")
        let livePage = try await Chromium.shared().newPage(live)
        try await livePage.waitForRoute(
            "characters://list", "the list on the failing mock",
            where: BrowserPage.screenHas("Could not load characters"))
        await livePage.close()

        try await page.run(
            """
            const select = document.querySelector('select[data-filter=state]');
            select.value = 'error';
            select.dispatchEvent(new Event('change'));
            """)
        let file = copy.root.appendingPathComponent(Self.listSource)
        let original = try String(contentsOf: file, encoding: .utf8)
        try #require(original.contains(Self.title), "the edited title moved; update this test")

        // Saved as an editor saves (written beside and renamed over): the cards are drawn by the new build.
        let edited = original.replacingOccurrences(of: Self.title, with: #"title: "Could not load the characters""#)
        try edited.write(to: file, atomically: true, encoding: .utf8)
        try await page.waitFor(
            "the redrawn card",
            "document.querySelector(\"\(errorCard)\").textContent.includes('Could not load the characters')",
            patience: .seconds(300))
        #expect(try await page.value("document.querySelector('select[data-filter=state]').value") == "error")
        #expect(
            try await page.value(
                "Array.from(document.querySelectorAll('#gallery .card')).filter(c => !c.hidden).every(c => c.dataset.state === 'error')"
            ))
        // The live app the card opened is still linked.
        #expect(try await page.value("document.querySelector(\"\(errorCard) a.card-live-link\") !== null"))
        try await page.waitFor(
            "the redraw's notice", "document.getElementById('notice').textContent.includes('previews redrawn')")

        // A save that does not compile: its errors over the cards, which stay as the last good build drew them.
        try edited.replacingOccurrences(of: #""Could not load the characters""#, with: #""Could not" +"#).write(
            to: file, atomically: false, encoding: .utf8)
        try await page.waitFor(
            "the build's failure",
            "!document.getElementById('build-failure').hidden && document.getElementById('build-failure').textContent.includes('did not build')",
            patience: .seconds(300))
        #expect(
            try await page.value(
                "document.querySelector(\"\(errorCard)\").textContent.includes('Could not load the characters')"))
        #expect(try await app.quit(from: page) == 0)
    }
}
