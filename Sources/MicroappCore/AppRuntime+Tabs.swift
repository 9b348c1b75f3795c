import MicroappSDK

// The tab bar: each running feature's top-level entry point (`FeatureManifest.tab`), computed here once for every
// front end. Tabs show while someone is signed in (or the app has no session at all); in solo only the
// loaded feature's tab can show, since only it runs.

extension AppRuntime {
    /// The tabs of the running features: the host's own and pinned features' first, then untrusted ones (whatever
    /// order an untrusted manifest asks for, it never sorts before a tab somebody vouched for), each group by
    /// declared order (then title, then id). Each carries its feature's origin; the one of the feature on screen is
    /// selected. Empty while signed out.
    public var tabs: [Frame.Tab] {
        guard session.map({ $0.value != nil }) ?? true else { return [] }
        let onScreen = router.top?.feature
        // A feature still to start has its tab already: the bar does not grow while the app starts.
        return runningFeatures.compactMap { manifest -> (TabDeclaration, Frame.Tab)? in
            guard let tab = manifest.tab else { return nil }
            return (
                tab,
                Frame.Tab(
                    id: Self.tabID(of: manifest.id), title: tab.title, route: tab.route,
                    selected: manifest.id == onScreen, origin: origin(of: manifest.id))
            )
        }
        .sorted { rank($0) < rank($1) }
        .map(\.1)
    }

    private func rank(_ tab: (TabDeclaration, Frame.Tab)) -> (Int, Int, String, String) {
        (tab.1.untrustedMark == nil ? 0 : 1, tab.0.order, tab.0.title, tab.1.id)
    }

    /// `tab.<feature-id>`, the id a `tap` uses to open a feature's tab.
    public static func tabID(of feature: String) -> String { "tab.\(feature)" }

    /// Opens the tab with `id` if one is shown: back to its route when that is on the back stack (the screens above
    /// it are dropped, as back would), else its route through the router and its guards. False when no tab has `id`.
    func openTab(_ id: String) -> Bool {
        guard let tab = tabs.first(where: { $0.id == id }) else { return false }
        if router.back(to: tab.route) {
            showTop()
        } else {
            navigate(to: tab.route)
        }
        return true
    }
}
