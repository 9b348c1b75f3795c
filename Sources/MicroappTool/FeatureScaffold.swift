import MicroappSDK
import MicroappTerminal

/// What `microapp new NAME` writes: a feature with one screen and its view model, one service with mocks, a
/// route, previews with their golden files, an entry and a test. Checks the name first.
struct FeatureScaffold {
    /// The folder and module name (`Profile`).
    let name: String
    /// The prefix of the feature's types (`Profile`): the name with its first letter in upper case.
    let typePrefix: String
    /// The feature id and route scheme (`profile`).
    let id: String
    /// A recommendation about the name, when it is valid but unusual.
    let note: String?

    /// Checks `name` against Swift's rules and the names already taken (`existing` folders in Plugins/).
    init(name: String, existing: [String]) throws(Problem) {
        let fix = "use an UpperCamelCase Swift identifier such as Profile or UserSettings"
        guard let first = name.first else { throw Problem.usage("the feature name is empty", fix: fix) }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            let bad = name.filter { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }
            throw Problem.usage(
                "'\(name)' is not a valid Swift identifier: it contains \(bad.map { "'\($0)'" }.joined(separator: ", ")) (only A-Z, a-z, 0-9 and _ may be used)",
                fix: fix)
        }
        guard !first.isNumber else {
            throw Problem.usage("'\(name)' is not a valid Swift identifier: it starts with a digit", fix: fix)
        }
        guard !Self.keywords.contains(name) else {
            throw Problem.usage("'\(name)' is a Swift keyword, so it cannot name a module or type", fix: fix)
        }
        guard !existing.contains(name) else {
            throw Problem.usage(
                "Plugins/\(name) already exists", fix: "choose another name, or remove Plugins/\(name) first")
        }
        let id = name.lowercased().replacingOccurrences(of: "_", with: "-")
        if let taken = Self.takenNames(existing).first(where: { $0.lowercased() == name.lowercased() }) {
            throw Problem.usage(
                "'\(name)' is taken: the package already has a module or target named \(taken)",
                fix: "choose another name")
        }
        if let clash = existing.first(where: { $0.lowercased().replacingOccurrences(of: "_", with: "-") == id }) {
            throw Problem.usage(
                "feature id '\(id)' is taken by Plugins/\(clash) (ids are lowercased names)",
                fix: "choose a name that differs from \(clash) by more than letter case")
        }
        self.name = name
        self.id = id
        typePrefix = first.uppercased() + name.dropFirst()
        note =
            first.isLowercase
            ? "\(name) works, but feature names are UpperCamelCase by convention (\(typePrefix)); its types are called \(typePrefix)Feature, …"
            : nil
    }

    /// `profile://home`.
    var route: String { "\(id)://home" }
    /// `profile.greeting`.
    var serviceKey: String { "\(id).greeting" }

    /// Swift keywords (reserved everywhere, or in declarations and expressions) that cannot name a module or a type.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil",
        "self", "Self", "super", "throws", "true", "try", "_", "Type", "Protocol", "some", "any", "async", "actor",
        "macro", "each", "consume", "copy", "discard", "get", "set", "willSet", "didSet",
    ]

    /// Modules and targets a feature's targets (`NAME`, `NAMEPlugin`, `NAMETests`) must not be called: the
    /// package's own, the toolchain's, and those of the features already there; plus the scaffold's own types.
    static func takenNames(_ existing: [String]) -> [String] {
        let package = [
            "MicroappSDK", "CMicroappABI", "MicroappCore", "MicroappPlatform", "MicroappDevLoop", "MicroappTerminal",
            "MicroappTesting", "MicroappTool", "DemoServices",
            "CSQLite", "CCrypt", "microapp", "Microapps",
        ]
        let toolchain = [
            "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
            "FoundationXML", "Glibc", "Musl", "Dispatch", "Synchronization", "Observation", "Testing", "XCTest",
            "Distributed", "RegexBuilder", "Cxx", "CxxStdlib", "SwiftShims", "SwiftGlibc", "Darwin",
        ]
        let features = existing.flatMap { [$0, $0 + "Plugin", $0 + "Tests"] }
        return package + toolchain + features + ["Greeting", "GreetingRequest"]
    }
}

extension FeatureScaffold {
    /// The screens the scaffolded feature previews, as its Previews.swift makes them, so `new` writes the golden
    /// files at once (the golden test then checks that the compiled feature draws exactly these).
    var previewScreens: [(name: String, preview: ScreenPreview)] {
        let field = Element.field(TextField(id: "name", label: "Name", text: "World", placeholder: "Who to greet"))
        let greet = Element.button(Button(id: "greet", title: "Greet"))
        let screens = [
            Screen(title: typePrefix, content: [field, greet], state: .loading("Asking for a greeting…")),
            Screen(title: typePrefix, content: [.text(Text("Hello, World!", style: .headline)), field, greet]),
            Screen(
                title: typePrefix, content: [field, greet],
                state: .error(
                    ErrorPanel(
                        title: "Could not get a greeting", message: "The greeting service is unavailable",
                        actions: [Button(id: "retry", title: "Retry")]))),
        ]
        return screens.map { ScreenPreview(route, $0) }.map { (PreviewCommand.fileName($0), $0) }
    }

    /// Every file to write, by path inside `Plugins/NAME`.
    var files: [(path: String, contents: String)] {
        let manifest = FeatureManifest(id: id, version: 1, displayName: name, routes: [RouteDeclaration(route)])
        let goldens = previewScreens.map { item in
            (
                "Previews/\(item.name).txt",
                PlainTextRenderer.render(PreviewCommand.frame(item.preview, manifest: manifest)) + "\n"
            )
        }
        return [
            ("Sources/\(typePrefix)Feature.swift", featureSource),
            ("Sources/\(typePrefix)ViewModel.swift", viewModelSource),
            ("Sources/Mocks.swift", mocksSource),
            ("Sources/Previews.swift", previewsSource),
            ("Entry/Entry.swift", entrySource),
            ("Tests/\(name)Tests.swift", testSource),
        ] + goldens
    }
}
