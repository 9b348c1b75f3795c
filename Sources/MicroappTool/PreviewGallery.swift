import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal
import MicroappWeb

/// `microapp preview [FEATURE] --ui web`: every preview of one feature, or of every feature, served as a gallery of
/// cards in a browser. The page gets the cards as its `gallery` event (each a `preview --ui json` line, with the
/// feature's display name and the `solo` command that opens that screen live) and draws each with the same code that
/// draws the app. Under `--watch` a saved source rebuilds its feature, and the gallery is sent again with its cards
/// drawn by the new build.
@MainActor
final class PreviewGallery {
    /// The gallery's cards by feature id, in the order the features were named.
    private var cards: [(feature: String, name: String, cards: [String])] = []
    /// What each card opens live: the `/live` requests' cards.
    private var live: [String: GalleryLiveSolos.Card] = [:]
    private let arguments: Arguments
    /// The host's own command name, which each card's `solo` command starts with.
    private let command: String

    private init(arguments: Arguments, command: String) {
        self.arguments = arguments
        self.command = command
    }

    /// Serves the gallery until the page quits; each card's command starts with `command` (the host's own name).
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
        let gallery = PreviewGallery(arguments: arguments, command: command)
        var failed: ExitCode?
        var libraries: [String: String] = [:]
        for name in names {
            switch try await gallery.load(name, building: true) {
            case .loaded(let feature, let library): libraries[feature] = library
            // One feature without previews does not hide the others' cards; it is said, and the exit says it.
            case .failed(let code): failed = failed ?? code
            }
        }
        guard !gallery.cards.isEmpty else { return failed ?? .usage }
        let exit = await gallery.present(watching: arguments[CommonOptions.watch] ? libraries : nil)
        return exit == .ok ? (failed ?? .ok) : exit
    }

    /// A feature's cards loaded (its id and library), or the exit code of why there are none (said on stderr).
    private enum Loaded {
        case loaded(feature: String, library: String)
        case failed(ExitCode)
    }

    /// Loads the previews of the feature `name` (built first when `building`) into its cards, in place of any it
    /// had.
    private func load(_ name: String, building: Bool) async throws(Problem) -> Loaded {
        switch try await PreviewCommand.previews(of: name, arguments: arguments, building: building) {
        case .previews(let manifest, let library, let named):
            let state = arguments[PreviewCommand.state]
            var drawn: [String] = []
            for item in named where state == "all" || item.preview.state.rawValue == state {
                let frame = PreviewCommand.frame(item.preview, manifest: manifest)
                let line = PreviewCommand.jsonLine(frame, name: item.name, preview: item.preview)
                let card = GalleryLiveSolos.Card(
                    feature: manifest.displayName, route: item.preview.route, mocks: item.preview.mocks)
                let solo = ([command] + card.soloArguments + ["--ui", "web"]).joined(separator: " ")
                drawn.append(Self.card(line, solo: solo))
                live["\(manifest.id)/\(item.name)"] = card
            }
            if let index = cards.firstIndex(where: { $0.feature == manifest.id }) {
                cards[index].cards = drawn
            } else {
                cards.append((manifest.id, name, drawn))
            }
            return .loaded(feature: manifest.id, library: library)
        case .failed(let code):
            return .failed(code)
        }
    }

    /// The `gallery` event: every card, in order.
    private var galleryEvent: String { "[" + cards.flatMap(\.cards).joined(separator: ",") + "]" }

    /// Serves the cards until the page quits, and under `--watch` rebuilds the features of `watching` (their
    /// libraries by feature id) when their sources are saved.
    private func present(watching libraries: [String: String]?) async -> ExitCode {
        let count = cards.reduce(0) { $0 + $1.cards.count }
        let still = StillApp(
            frame: Frame(
                feature: "microapp", featureName: "Previews", version: 0, route: "microapp://previews",
                screen: Screen(
                    title: "Previews",
                    content: [.text(Text("\(count) previews of \(cards.count) feature(s)", style: .caption))]),
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
        var watching: (watcher: SourceWatcher, task: Task<Void, Never>)?
        let exit = await FrontEnd.web.present(
            still, appName: "Microapps", arguments: arguments, settleTimeout: .seconds(10), restartFolder: nil,
            actions: ["/live": { solos.open($0) }],
            serving: { web in
                web.introduce("gallery", data: self.galleryEvent, replacing: true)
                telling = Task { @MainActor in
                    for await event in liveEvents { web.introduce("live", data: event) }
                }
                if let libraries { watching = self.watch(libraries, web: web, still: still, solos: solos) }
            })
        told.finish()
        telling?.cancel()
        watching?.watcher.stop()
        watching?.task.cancel()
        await BlockingWork.run { solos.stopAll() }
        return exit
    }

    /// Under `--watch`: a saved source rebuilds its feature (notices as `run --watch` posts them), and every tab is
    /// sent the gallery again with the new build's cards.
    private func watch(_ libraries: [String: String], web: WebFrontEnd, still: StillApp, solos: GalleryLiveSolos)
        -> (SourceWatcher, Task<Void, Never>)?
    {
        let environment = arguments.environment
        var sources: [String: FeatureSources] = [:]
        for (feature, library) in libraries {
            sources[feature] = FeatureSources(library: library, environment: environment)
        }
        let rebuilds = SourceRebuilds(sources: sources)
        guard
            let watcher = rebuilds.watcher(polling: SourceWatcher.prefersPolling(in: environment), now: environment.now)
        else {
            still.post(
                Notice(
                    level: .error, code: .notWatching,
                    message: "--watch: no feature here was built from sources this tool can rebuild",
                    fix: "run the gallery from the repository (or a feature package) whose features it shows"))
            return nil
        }
        rebuilds.prime()
        let task = Task { @MainActor [weak self] in
            for await batch in watcher.changes() {
                guard let self else { return }
                if batch.isEmpty {
                    let names = sources.values.map(\.folder).sorted().joined(separator: ", ")
                    still.post(
                        Notice(
                            level: .info, code: .watching, message: "Watching: saves in \(names) redraw their cards",
                            detail: rebuilds.directories.sorted()))
                    continue
                }
                await rebuilds.rebuild(
                    batch, post: still.post, preparing: { _ in { $0 } },
                    built: { feature, _ in await self.redraw(feature, web: web, still: still, solos: solos) })
            }
        }
        return (watcher, task)
    }

    /// Loads the new build of `feature` and sends the gallery again.
    private func redraw(_ feature: String, web: WebFrontEnd, still: StillApp, solos: GalleryLiveSolos) async {
        guard let name = cards.first(where: { $0.feature == feature })?.name else { return }
        let loaded = try? await load(name, building: false)
        guard case .loaded = loaded else {
            still.post(
                Notice(
                    level: .error, code: .previewsFailed,
                    message: "\(name) built, but its previews could not be drawn",
                    fix: "see the terminal for why; the cards stay as they were", feature: feature))
            return
        }
        solos.update(live)
        web.introduce("gallery", data: galleryEvent, replacing: true)
        let count = cards.first { $0.feature == feature }?.cards.count ?? 0
        still.post(
            Notice(
                level: .info, code: .previewsRedrawn,
                message: "\(name): \(count) previews redrawn from the new build",
                feature: feature))
    }

    /// A preview's JSON line with `solo`: the command that opens the screen live.
    static func card(_ line: String, solo: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let encoded = (try? encoder.encode(solo)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return String(line.dropLast()) + #","solo":"# + encoded + "}"
    }

    /// Every feature the tool would run: the names of the libraries it finds.
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

    /// Shows `notice` with the frame, as an app posts one.
    func post(_ notice: Notice) {
        onUpdate?(frame, [notice])
    }
}
