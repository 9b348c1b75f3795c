import Foundation
import TestBrowser
import Testing

/// `--watch` in the browser: a hot swap seen in the page.
@Suite("End to end: a hot swap in the browser")
struct BrowserHotSwapTests {
    @Test("in the browser, a new build shows without a reload: the typed name kept, the swap's notice in the footer")
    func swapSeenInThePage() async throws {
        let (second, plugins, installed) = try await HotSwapEndToEndTests.helloInstalledHowdyBuilt(
            in: "drop-web-plugins")
        let app = try await WebApp.start([
            "run", "--watch", "--no-supervise", "--isolation", "none", "--plugins", plugins.path, "--only", "drop",
        ])
        let page = try await app.open()
        try await page.waitForRoute("drop://home", where: BrowserPage.screenHas("Hello"))
        try await page.fill(BrowserPage.element("name", "input"), with: "Rick")
        try await page.waitFor("the greeting of Rick", BrowserPage.screenHas("Hello Rick"))
        // A reload would lose this, and the field the person typed in.
        try await page.run("window.beforeTheSwap = true")
        // The watch started before the page was served, so it sees the rename below.
        let staged = plugins.appendingPathComponent("libDrop.so.partial")
        try FileManager.default.copyItem(at: second, to: staged)
        _ = rename(staged.path, installed.path)
        try await page.waitFor("the new build's screen", BrowserPage.screenHas("Howdy Rick"))
        #expect(try await page.value("window.beforeTheSwap === true"), "the page was reloaded")
        let field: String = try await page.value("document.querySelector('input[data-id=\"name\"]').value")
        #expect(field == "Rick")
        try await page.waitFor(
            "the swap's notice", "document.getElementById('notice').textContent.includes('swapped v1 → v2')")
        let notice: String = try await page.value("document.getElementById('notice').textContent")
        #expect(notice.contains("(state kept)"))
        #expect(try await page.value("document.getElementById('version').textContent") == "v2")
        #expect(try await app.quit(from: page) == 0)
    }
}
