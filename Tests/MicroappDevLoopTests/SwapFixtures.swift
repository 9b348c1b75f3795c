import Foundation
import MicroappPlatform
import TestScratch

#if canImport(Glibc)
    import Glibc
#endif

/// Versions of a small test feature, `swappy`, compiled by the tests with swiftc against the SDK `swift test` built
/// beside the runner (never `swift build`: the test run holds the package's build lock).
enum Swappy: String, CaseIterable, Sendable {
    /// Greets with "Hello", keeps `name` and `taps`.
    case v1
    /// The same state, greets with "Howdy".
    case v2
    /// Traps while describing itself (a static initializer used by the manifest).
    case trapping
    /// Never finishes describing itself.
    case hanging
    /// State shape changed: `taps` dropped, `visits` added; decodes tolerantly, so `name` survives.
    case reshaped
    /// State shape changed and `restore` refuses older snapshots: its screen starts fresh.
    case strict
    /// Like `strict`, and its `makeRoot` works once only: the fresh Root after a refused restore cannot be made.
    case startsOnce
    /// Describes itself as built against SDK 9.0, without the version symbol `MicroappEntry.export` makes it need.
    case otherSDK
    /// Its manifest says it is another feature.
    case renamed

    /// The folder of the test runner, where `swift test` put `libMicroappSDK.so`, `Modules/` and `microapp`.
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    /// The `microapp` executable of this build (the child-process probe runs it).
    static var microapp: String { buildDirectory + "/microapp" }

    /// Each version's `libSwappy.so`, compiled once per test process when a test first asks for it. Only ever
    /// touched from a thread of its own (see `library()`): compiling on the main actor would stall every test.
    private static let compiled = MadeOnce<String>()

    /// The path of this version's library (compiling it the first time): a test waits for the versions it uses, not
    /// for all nine (most use v1 and v2; all nine at once kept every hot-swap test waiting until the last compile).
    func library() async throws -> String {
        try await BlockingWork.run {
            try Self.compiled.value(for: rawValue) {
                ModuleCache.warm()
                return try Self.compile(self, in: Scratch.folder("hot-swap-\(rawValue)").path)
            }
        }
    }

    /// Compiles this version into `folder/libSwappy.so`.
    static func compile(_ version: Swappy, in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/Swappy.swift"
        try version.source.write(toFile: source, atomically: true, encoding: .utf8)
        let library = folder + "/libSwappy.so"
        let build = buildDirectory
        let (status, text) = try swiftc([
            "-emit-library", "-swift-version", "6", "-module-name", "Swappy", "-I", build + "/Modules", "-Xcc",
            "-fmodule-map-file=\(build)/CMicroappABI.build/module.modulemap", "-L", build, "-lMicroappSDK", "-Xlinker",
            "-rpath", "-Xlinker", build, "-use-ld=lld", "-o", library, source,  // lld: a third of gold's CPU
        ])
        guard status == 0 else {
            throw FixtureError(description: "swiftc could not build \(version) (status \(status)):\n\(text)")
        }
        return library
    }

    /// Runs `swiftc arguments` to its end (blocking: call it off the cooperative pool); its status and output.
    static func swiftc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc"] + arguments
        process.environment = Scratch.childEnvironment()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let text = try CompilerSlots.run {
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        return (process.terminationStatus, text)
    }

    /// The Swift source of this version.
    var source: String {
        let greeting = self == .v1 ? "Hello" : "Howdy"
        let id = self == .renamed ? "swappy-renamed" : "swappy"
        let describe =
            switch self {
            case .trapping: "let describe: FeatureManifest = Trap.manifest"
            case .hanging: "let describe: FeatureManifest = { while true { sleep(1) } }()"
            default: "let describe = base"
            }
        let entry =
            self == .otherSDK
            ? """
            MicroappEntry.describe(
                SwappyFeature.self, abiVersion: UInt32(MICROAPP_ABI_MAJOR << 16 | MICROAPP_ABI_MINOR),
                structSize: UInt32(MemoryLayout<microapp_descriptor>.size), sdkVersion: "9.0")
            """ : "MicroappEntry.export(SwappyFeature.self)"
        return """
            import CMicroappABI
            import Foundation
            import MicroappSDK

            enum Trap { static let manifest: FeatureManifest = { fatalError("trap while describing") }() }

            public enum SwappyFeature: Feature {
                public static var manifest: FeatureManifest {
                    let base = FeatureManifest(
                        id: "\(id)", version: 1, displayName: "Swappy", routes: [RouteDeclaration("swappy://home")])
                    \(describe)
                    return describe
                }
                @MainActor static var made = 0
                @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                    made += 1
                    \(makeRootGuard)
                    return SwappyRoot()
                }
            }

            struct StartFailure: Error, CustomStringConvertible { var description: String { "makeRoot works once only" } }

            \(stateSource)

            @MainActor final class SwappyRoot: Root {
                var state = SwappyState()
                func screen(at location: Location) -> Screen {
                    Screen(title: "Swappy", content: [
                        .text(Text("\(greeting), \\(state.summary)")),
                        .field(TextField(id: "name", label: "Name", text: state.name)),
                        .button(Button(id: "tap", title: "Tap")),
                    ])
                }
                func handle(_ action: Action, at location: Location) {
                    switch action {
                    case .input(_, let text): state.name = text
                    case .tap: state.tap()
                    default: break
                    }
                }
                func snapshot() -> Data? { try? JSONEncoder().encode(state) }
                func restore(from snapshot: Data) throws { state = try JSONDecoder().decode(SwappyState.self, from: snapshot) }
            }

            @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
                \(entry)
            }
            """
    }

    /// What `makeRoot` checks before making a Root.
    private var makeRootGuard: String {
        self == .startsOnce ? "if made > 1 { throw StartFailure() }" : ""
    }

    private var stateSource: String {
        switch self {
        case .reshaped:
            """
            struct SwappyState: Codable {
                var name = ""
                var visits = 0
                var summary: String { "\\(name) visits \\(visits)" }
                mutating func tap() { visits += 1 }
                init() {}
                init(from decoder: any Decoder) throws {
                    let saved = try decoder.container(keyedBy: CodingKeys.self)
                    name = try saved.decodeIfPresent(String.self, forKey: .name) ?? ""
                    visits = try saved.decodeIfPresent(Int.self, forKey: .visits) ?? 0
                }
            }
            """
        case .strict, .startsOnce:
            """
            struct SwappyState: Codable {
                var fullName = ""
                var stars = 0
                var name: String { get { fullName } set { fullName = newValue } }
                var summary: String { "\\(fullName) stars \\(stars)" }
                mutating func tap() { stars += 1 }
            }
            """
        default:
            """
            struct SwappyState: Codable {
                var name = ""
                var taps = 0
                var summary: String { "\\(name) taps \\(taps)" }
                mutating func tap() { taps += 1 }
            }
            """
        }
    }
}

/// Why a fixture could not be made.
struct FixtureError: Error, CustomStringConvertible {
    /// What went wrong, with the compiler's output.
    var description: String
}
