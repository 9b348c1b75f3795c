// What the browser tests know of the page `microapp --ui web` serves (Sources/CWebPage/page): the route it shows is
// `document.body.dataset.route`, a feature's element carries its id as `data-id`, its screen is `#screen`.

extension BrowserPage {
    /// Waits until the page shows `route` and, if given, `condition` holds.
    public func waitForRoute(_ route: String, _ what: String = "", where condition: String = "true") async throws {
        try await waitFor(
            "\(route)\(what.isEmpty ? "" : ": " + what)",
            "document.body.dataset.route === \(Self.literal(route)) && (\(condition))")
    }

    /// The selector of the element a feature gave `id` (its `data-id`; never a DOM id of its choosing).
    public static func element(_ id: String, _ tag: String = "") -> String {
        "\(tag)[data-id=\(literal(id))]"
    }

    /// JavaScript true when the screen's text contains `text`.
    public static func screenHas(_ text: String) -> String {
        "document.getElementById('screen').innerText.includes(\(literal(text)))"
    }
}
