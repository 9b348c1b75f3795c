import MicroappCore
import MicroappPlatform
import MicroappSDK

#if canImport(Glibc)
    import Glibc
#endif

/// The child half of the probe: what `microapp probe` does in the process the host started for it. It loads the
/// library, registers it and draws its first screens here, where a trap ends only this process.
extension PluginProbe {
    /// The path a standby probe is to examine, read from its standard input; nil when the input closed first (the
    /// host ended or no longer needs it). The host is told it arrived (one byte back on the socket) before anything
    /// of the library runs, so an end before that byte is never blamed on the library.
    public static func awaitLibrary() -> String? {
        guard let line = readLine(), !line.isEmpty else { return nil }
        // On a terminal (a person typing the path) standard input is no socket: send fails there and says nothing.
        _ = send(0, [UInt8(ascii: "\n")], 1, Int32(MSG_NOSIGNAL))
        return line
    }

    /// Loads, registers and draws the first screens of the library at `file`, and says what was and was not
    /// checked; a refusal carries the loader's diagnostic.
    @MainActor
    public static func examine(_ file: String) -> ProbeReport {
        switch PluginLoader.load(file).flatMap({ image in PluginLoader.register(image).map { (image, $0) } }) {
        case .success(let (image, feature)):
            // A trap in the feature's first screens kills this (child) process, which is the probe's verdict.
            let firstScreens = renderFirstScreens(image, feature)
            var checked = ["loaded", "registered", "manifest"]
            var notChecked: [String] = []
            switch firstScreens {
            case .drawn: checked.append("first screens")
            case .notDrawn(let why): notChecked.append("first screens (\(why))")
            }
            var report = ProbeReport(
                file: file, verdict: "ok", manifest: image.manifest, checked: checked, notChecked: notChecked)
            report.library = LibraryDescription(manifest: image.manifest, sdkVersion: image.sdkVersion)
            return report
        case .failure(let problem):
            return ProbeReport(file: file, verdict: "refused", problem: problem)
        }
    }

    /// Whether the probe drew a feature's first screens, and why not.
    enum FirstScreens: Equatable {
        case drawn
        case notDrawn(String)
    }

    /// Starts the feature on its own mocks and draws each of its routes once (parameters filled with `1`), so a
    /// feature that traps in `makeRoot` or its first render is caught here, not in the running app. A feature
    /// without complete mocks is only loaded and registered, and the answer says so.
    @MainActor
    static func renderFirstScreens(_ image: PluginImage, _ feature: any Feature.Type) -> FirstScreens {
        guard image.manifest.hasMocks else { return .notDrawn("no mocks") }
        let mocks = feature.mocks()
        let unmocked = mocks.unmocked(in: image.manifest)
        guard unmocked.isEmpty else { return .notDrawn("no mocks for \(unmocked.joined(separator: ", "))") }
        let urls = image.manifest.routes.compactMap { route -> String? in
            guard let pattern = try? RoutePattern(route.pattern) else { return nil }
            let path = pattern.segments.map { segment -> String in
                switch segment {
                case .literal(let text): text
                case .parameter: "1"
                }
            }
            return "\(pattern.scheme)://\(path.joined(separator: "/"))"
        }
        guard let first = urls.first else { return .notDrawn("no routes") }
        // The feature is registered already: drive it as the type in hand rather than through the C entry again.
        let driver: RootDriver
        do {
            driver = try RootDriver(feature, open: first)
        } catch {
            return .notDrawn("it did not start on its mocks: \(error.reason)")
        }
        _ = driver.screen
        for url in urls.dropFirst() {
            driver.open(url)
            _ = driver.screen
        }
        return .drawn
    }
}
