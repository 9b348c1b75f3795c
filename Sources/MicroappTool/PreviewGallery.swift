import Foundation
import MicroappCore
import MicroappHost
import MicroappSDK
import MicroappTerminal

/// `microapp preview [FEATURE] --ui web`: every preview of one feature, or of every feature, served as a gallery of
/// cards in a browser. The page gets the cards as its `gallery` event (each a `preview --ui json` line, with the
/// feature's display name and the `solo` command that opens that screen live) and draws each with the same code that
/// draws the app.
enum PreviewGallery {
    /// Serves the gallery until the page quits; each card's command starts with `command` (the host's own name).
    @MainActor
    static func serve(_ arguments: Arguments, command: String) async throws(UsageError) -> ExitCode {
        guard arguments.operands.count <= 1 else {
            throw UsageError(
                "preview --ui web takes at most a FEATURE (every route and state of it is drawn)",
                fix: "write `microapp preview --ui web` for every feature, or `microapp preview Characters --ui web`")
        }
        let names: [String]
        if let name = arguments.operands.first {
            names = [name]
        } else {
            names = try Self.allFeatures(arguments)
        }
        var cards: [String] = []
        var failed: ExitCode?
        for name in names {
            switch try await PreviewCommand.previews(of: name, arguments: arguments) {
            case .previews(let manifest, let named):
                let state = arguments[PreviewCommand.state]
                for item in named where state == "all" || item.preview.state.rawValue == state {
                    let frame = PreviewCommand.frame(item.preview, manifest: manifest)
                    let line = PreviewCommand.jsonLine(frame, name: item.name, preview: item.preview)
                    let solo = "\(command) solo \(manifest.displayName) --open \(item.preview.route) --ui web"
                    cards.append(Self.card(line, solo: solo))
                }
            case .failed(let code):
                // One feature without previews does not hide the others' cards; it is said, and the exit says it.
                failed = failed ?? code
            }
        }
        guard !cards.isEmpty else { return failed ?? .usage }
        let still = StillApp(
            frame: Frame(
                feature: "microapp", featureName: "Previews", version: 0, route: "microapp://previews",
                screen: Screen(
                    title: "Previews",
                    content: [.text(Text("\(cards.count) previews of \(names.count) feature(s)", style: .caption))]),
                mode: .preview))
        let exit = await FrontEnd.web.present(
            still, appName: "Microapps", arguments: arguments, settleTimeout: .seconds(10), restartFolder: nil,
            introductions: [("gallery", "[" + cards.joined(separator: ",") + "]")])
        return exit == .ok ? (failed ?? .ok) : exit
    }

    /// A preview's JSON line with `solo`: the command that opens the screen live.
    static func card(_ line: String, solo: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let encoded = (try? encoder.encode(solo)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return String(line.dropLast()) + #","solo":"# + encoded + "}"
    }

    /// Every feature the tool would run: the names of the libraries it finds.
    @MainActor
    private static func allFeatures(_ arguments: Arguments) throws(UsageError) -> [String] {
        let locations = PluginLocations.current()
        let directories = try locations.directories(arguments)
        let found = locations.libraries(in: directories, environment: arguments.environment).paths
        let names = found.map(FeatureLibrary.stem(of:))
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}

/// An app that shows one frame and does nothing else: the gallery's page needs no app behind it.
@MainActor
final class StillApp: AppDriver {
    let frame: Frame
    var onUpdate: ((Frame, [Notice]) -> Void)?
    private(set) var hasQuit = false

    init(frame: Frame) {
        self.frame = frame
    }

    func send(_ event: Event) {
        if event == .quit { hasQuit = true }
    }
}
