import CommandLineSpec
import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

/// `microapp preview FEATURE [ROUTE] [--state S] [--ui text|json] [--output DIR]`: draws the screens a feature
/// previews (`Feature.previews()`), each in its state, without running the app. Golden files are its text output.
enum PreviewCommand: Command {
    /// `view`, `loading`, `alert`, `error`, or `all` (the default).
    static let states = PreviewState.allCases.map(\.rawValue) + ["all"]
    static let state = OptionSpec.value(
        "--state", "STATE", .choice(states, noun: "a state", fix: "use one of: \(states.joined(separator: ", "))"),
        default: "all", help: "view, loading, alert, error or all (the default)")
    /// How previews are drawn: text, JSON lines, or a gallery page in a browser; never a terminal.
    enum Drawing: String, Sendable, CaseIterable {
        case text, json, web
    }

    static let ui = OptionSpec.value(
        "--ui", "MODE",
        .choice(
            of: Drawing.self, noun: "a way preview draws",
            fix: "use --ui text, --ui json or --ui web (a gallery in a browser)"),
        default: .text,
        help: "text (the default), json, or web: every preview as cards in a browser (FEATURE optional: all)")
    static let output = OptionSpec.value(
        "--output", "DIR", .text, help: "write one NAME.txt per preview into DIR instead")

    static let declaration = CommandSpec(
        "microapp preview", summary: "draw each screen of a feature in each state, without running the app",
        operands: [.optional("FEATURE"), .optional("ROUTE")],
        options: [
            state, ui, CommonOptions.port, output, CommonOptions.plugins.with(help: "look for lib<FEATURE>.so in DIR"),
            CommonOptions.noBuild.with(help: "do not build the feature's library first"),
            CommonOptions.watch.with(
                help: "with --ui web: a saved source of a feature rebuilds it, and its cards redraw"),
        ],
        discussion: """
            Draws the screens a feature previews (its `static func previews()`, usually made with RootDriver
            over its mocks), each in its state, without running the app: as plain text (a blank line between
            screens; the header says `preview · STATE`) or as one JSON frame line each, with `name`, `state` and
            `variant` fields. ROUTE is a URL (characters://detail/2) or one of the feature's patterns.
            --output DIR writes one NAME.txt per preview (NAME = path.state[.variant]), removing other .txt files
            there when every preview is written: the golden files in Plugins/FEATURE/Previews are written this way
            by scripts/update-previews.
            --ui web serves a gallery on 127.0.0.1 (the URL is printed): every preview of FEATURE, or of every
            feature when FEATURE is left out, as cards side by side, filterable by feature and state; each card
            names the `solo` command that opens that screen live on the mock variants it was reached on, and
            Open live runs it. With --watch, a save in a feature's sources rebuilds it and redraws its cards (a
            build that fails is shown over them, which stay).
            Exit 1 when the feature has no previews (add `previews()` beside its mocks); 2 when they fail.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        if arguments[ui] == .web { return try await PreviewGallery.serve(arguments, command: host.commandName) }
        if arguments[CommonOptions.watch] {
            throw Problem.usage(
                "preview --watch redraws the gallery's cards", fix: "add --ui web, or leave out --watch")
        }
        return try await run(arguments)
    }

    /// Draws the previews as text or JSON lines (the gallery, `--ui web`, is `PreviewGallery`'s).
    @MainActor
    static func run(_ arguments: Arguments) async throws(Problem) -> ExitCode {
        guard (1...2).contains(arguments.operands.count), let name = arguments.operands.first else {
            throw Problem.usage(
                "preview takes a FEATURE and optionally a ROUTE",
                fix: "write e.g. `microapp preview Characters characters://list --state all`")
        }
        let state = arguments[Self.state]
        let json = arguments[ui] == .json
        let output = arguments[Self.output]
        if output != nil && json {
            throw Problem.usage("--output writes text files", fix: "leave out --ui json, or --output")
        }
        let named: [(name: String, preview: ScreenPreview)]
        let manifest: FeatureManifest
        switch try await previews(of: name, arguments: arguments) {
        case .previews(let loaded, _, let previews): (manifest, named) = (loaded, previews)
        case .failed(let exit): return exit
        }
        let chosen = try choose(named, route: arguments.operands.dropFirst().first, state: state, manifest: manifest)
        let rendered = chosen.map { (name: $0.name, preview: $0.preview, frame: frame($0.preview, manifest: manifest)) }
        if let output {
            return write(rendered.map { ($0.name, $0.frame) }, to: output, replacing: chosen.count == named.count)
        }
        if json {
            for item in rendered {
                Console.out(jsonLine(item.frame, name: item.name, preview: item.preview), verbatim: true)
            }
        } else {
            Console.out(rendered.map { PlainTextRenderer.render($0.frame) }.joined(separator: "\n\n"), verbatim: true)
        }
        return .ok
    }

    /// A feature's previews, or the exit code of why there are none (the problem was printed).
    enum Loaded {
        /// The manifest, the library's path and the previews by file name.
        case previews(FeatureManifest, library: String, [(name: String, preview: ScreenPreview)])
        case failed(ExitCode)
    }

    /// The previews of the feature `name` with their file names, loaded in this process (built first unless
    /// `--no-build` or `building` is false); a failure was reported on stderr.
    @MainActor
    static func previews(of name: String, arguments: Arguments, building: Bool = true) async throws(Problem)
        -> Loaded
    {
        // Loaded without mocks, the library is always an image in this process: previews run its code here.
        guard let library = try await FeatureLibrary.loadReporting(name, arguments: arguments, building: building),
            let feature = library.feature
        else {
            return .failed(.invalidPluginSet)
        }
        let manifest = library.plugin.manifest
        let all: [ScreenPreview]
        do {
            all = try await feature.previews()
        } catch {
            Console.err(
                Problem(
                    code: .previewsFailed, subject: "",
                    reason: "the previews of \(manifest.displayName) failed: \(error)",
                    fix:
                        "run `swift test --filter \(manifest.displayName)` and make \(library.typeName).previews() reach each state"
                )
            )
            return .failed(.invalidPluginSet)
        }
        guard !all.isEmpty else {
            Console.err(
                Problem(
                    code: .noPreviews, subject: "", reason: "\(manifest.displayName) has no previews",
                    fix:
                        "add `@MainActor public static func previews() async throws -> [ScreenPreview]` to \(library.typeName), built with RootDriver over its mocks (see Plugins/Auth/Sources/Previews.swift)"
                )
            )
            return .failed(.usage)
        }
        let named = all.map { (name: fileName($0), preview: $0) }
        if let clash = Dictionary(grouping: named, by: \.name).first(where: { $0.value.count > 1 }) {
            Console.err(
                Problem(
                    code: .previewNameClash, subject: "",
                    reason: "\(manifest.displayName) has \(clash.value.count) previews named \(clash.key)",
                    fix: "give each preview of one route and state its own variant: `session.preview(\"field errors\")`"
                )
            )
            return .failed(.invalidPluginSet)
        }
        return .previews(manifest, library: library.plugin.path, named)
    }

    /// `sign-in.alert`, `detail-2.view`, `sign-in.view.field-errors`: the route's path, the state, the variant.
    static func fileName(_ preview: ScreenPreview) -> String {
        let path = preview.route.range(of: "://").map { String(preview.route[$0.upperBound...]) } ?? preview.route
        let parts =
            [slug(path).isEmpty ? "root" : slug(path), preview.state.rawValue]
            + [preview.variant.map(slug)].compactMap { $0 }
        return parts.joined(separator: ".")
    }

    private static func slug(_ text: String) -> String {
        let words = text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.joined(separator: "-")
    }

    private static func choose(
        _ named: [(name: String, preview: ScreenPreview)], route: String?, state: String, manifest: FeatureManifest
    ) throws(Problem) -> [(name: String, preview: ScreenPreview)] {
        var chosen = named
        if let route {
            let pattern = try? RoutePattern(route)
            chosen = named.filter { item in
                item.preview.route == route
                    || (manifest.routes.contains { $0.pattern == route } && pattern?.match(item.preview.route) != nil)
            }
            guard !chosen.isEmpty else {
                let routes = Array(Set(named.map(\.preview.route))).sorted()
                throw Problem.usage(
                    "\(manifest.displayName) has no preview of \(route)",
                    fix: "use one of: \(routes.joined(separator: ", "))")
            }
        }
        guard state != "all" else { return chosen }
        let inState = chosen.filter { $0.preview.state.rawValue == state }
        guard !inState.isEmpty else {
            let there = Array(Set(chosen.map(\.preview.state.rawValue))).sorted()
            throw Problem.usage(
                "\(manifest.displayName) has no \(state) preview\(route.map { " of \($0)" } ?? "")",
                fix: "use --state \(there.joined(separator: ", --state ")) or --state all")
        }
        return inState
    }

    /// The preview as a frame: the header says `preview · alert` (and the variant), the footer the route; its
    /// `mocks` are the variants other than the defaults it was reached on (`characters.page=failing`).
    static func frame(_ preview: ScreenPreview, manifest: FeatureManifest) -> Frame {
        let detail = ([preview.state.rawValue] + [preview.variant].compactMap { $0 }).joined(separator: " · ")
        return Frame(
            feature: manifest.id, featureName: manifest.displayName, version: manifest.version, route: preview.route,
            screen: preview.screen, mode: .preview, mocks: preview.mocks.map { "\($0.key)=\($0.value)" }.sorted(),
            modeDetail: detail)
    }

    /// Writes `NAME.txt` per preview into `folder`; with `replacing`, removes the `.txt` files no preview wrote.
    private static func write(_ rendered: [(name: String, frame: Frame)], to folder: String, replacing: Bool)
        -> ExitCode
    {
        do {
            try Files.makeDirectory(folder)
            let written = Set(rendered.map { $0.name + ".txt" })
            if replacing {
                for file in Files.names(in: folder) where file.hasSuffix(".txt") && !written.contains(file) {
                    try Files.remove((folder as NSString).appendingPathComponent(file))
                }
            }
            for item in rendered {
                let path = (folder as NSString).appendingPathComponent(item.name + ".txt")
                try Files.replace(path, with: Data((PlainTextRenderer.render(item.frame) + "\n").utf8))
                Console.out(path)
            }
        } catch {
            Console.err(
                Problem(
                    code: .previewsNotWritten, subject: "",
                    reason: "could not write previews to \(folder): \(error)",
                    fix: "check the folder's permissions"))
            return .usage
        }
        return .ok
    }

    /// `{"type":"frame",…,"name":"sign-in.alert","state":"alert","variant":null}`: a frame line of `--ui json`
    /// with the preview's name, state and variant (its `mocks` are the variants it was reached on).
    static func jsonLine(_ frame: Frame, name: String, preview: ScreenPreview) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(PreviewLine(frame: frame, name: name, preview: preview))) ?? Data("{}".utf8)
        return #"{"type":"frame","# + String(decoding: body, as: UTF8.self).dropFirst()
    }
}

/// The body of a preview's JSON line: the frame's keys, explicit nulls, and the preview's own.
private struct PreviewLine: Encodable {
    let frame: Frame
    let name: String
    let preview: ScreenPreview

    enum Key: String, CodingKey { case account, name, state, variant }

    func encode(to encoder: any Encoder) throws {
        try frame.encode(to: encoder)
        var object = encoder.container(keyedBy: Key.self)
        if frame.account == nil { try object.encodeNil(forKey: .account) }
        try object.encode(name, forKey: .name)
        try object.encode(preview.state.rawValue, forKey: .state)
        try object.encode(preview.variant, forKey: .variant)
    }
}
