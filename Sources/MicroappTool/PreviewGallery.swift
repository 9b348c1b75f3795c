import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

/// `microapp preview [FEATURE] --ui web`: every preview of one feature, or of every feature, served as a gallery of
/// cards in a browser. The page gets the cards as its `gallery` event (each a `preview --ui json` line, with the
/// feature's display name and the `solo` command that opens that screen live) and draws each with the same code that
/// draws the app.
enum PreviewGallery {
    /// Serves the gallery until the page quits; each card's command starts with `command` (the host's own name).
    @MainActor
    static func serve(_ arguments: Arguments, command: String) async throws(Problem) -> ExitCode {
        guard arguments.operands.count <= 1 else {
            throw Problem.usage(
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
        var live: [String: GalleryLiveSolos.Card] = [:]
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
                    live["\(manifest.id)/\(item.name)"] = GalleryLiveSolos.Card(
                        feature: manifest.displayName, route: item.preview.route)
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
        // A card opened live is a child `solo` of this executable; the page hears of its URL as a `live` event.
        let (liveEvents, told) = AsyncStream<String>.makeStream()
        let solos = GalleryLiveSolos(
            cards: live, executable: FileFacts.executable.path,
            options: arguments[CommonOptions.plugins].flatMap { ["--plugins", $0] },
            // The internal marker lets the child take `--end-with-parent`, a hidden option.
            environment: arguments.environment.variables.merging([Commands.internalMarker: "1"]) { $1 },
            folder: arguments.environment.temporaryFolder,
            tell: { told.yield($0) })
        var telling: Task<Void, Never>?
        let exit = await FrontEnd.web.present(
            still, appName: "Microapps", arguments: arguments, settleTimeout: .seconds(10), restartFolder: nil,
            introductions: [("gallery", "[" + cards.joined(separator: ",") + "]")],
            actions: ["/live": { solos.open($0) }],
            serving: { web in
                telling = Task { @MainActor in
                    for await event in liveEvents { web.introduce("live", data: event) }
                }
            })
        told.finish()
        telling?.cancel()
        await BlockingWork.run { solos.stopAll() }
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
    private static func allFeatures(_ arguments: Arguments) throws(Problem) -> [String] {
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
