import Foundation
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

/// A repository with one feature, `Shadowy`, and the build plan SwiftPM would write for it (`.build/debug.yaml`), its
/// commands pointed at the SDK `swift test` built beside the runner; nothing runs `swift build`.
struct ShadowyRepository {
    let root: String
    var build: String { root + "/.build/debug" }
    var sources: String { root + "/Plugins/Shadowy/Sources" }
    var builder: PluginBuilder {
        PluginBuilder(repository: root, buildDirectory: build, configuration: "debug", environment: .process)
    }

    /// The feature's two files: the manifest's display name is `greeting()`, from the other file.
    static let feature = """
        import Foundation
        import MicroappSDK

        public enum ShadowyFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(
                    id: "shadowy", version: 1, displayName: greeting(), routes: [RouteDeclaration("shadowy://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { ShadowyRoot() }
        }

        @MainActor final class ShadowyRoot: Root {
            func screen(at location: Location) -> Screen { Screen(title: "Shadowy", content: []) }
            func handle(_ action: Action, at location: Location) {}
            func snapshot() -> Data? { nil }
            func restore(from snapshot: Data) throws {}
        }
        """

    /// Writes the sources and the plan, then builds as SwiftPM would have (its plan replayed).
    init() throws {
        root = Scratch.folder("shadow-build").path
        let files = FileManager.default
        for folder in [
            sources, root + "/Plugins/Shadowy/Entry", build + "/Shadowy.build", build + "/ShadowyPlugin.build",
            build + "/Shadowy.product", build + "/Modules",
        ] {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try write("Feature.swift", Self.feature)
        try write("Greeting.swift", #"func greeting() -> String { "Hello" }"#)
        try """
        import MicroappSDK
        import Shadowy

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(ShadowyFeature.self)
        }
        """.write(toFile: root + "/Plugins/Shadowy/Entry/Entry.swift", atomically: true, encoding: .utf8)
        try writePlan()
    }

    /// Saves `text` as `Plugins/Shadowy/Sources/<name>`.
    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: sources + "/" + name, atomically: true, encoding: .utf8)
    }

    /// Saves `text` as `Plugins/Shadowy/Sources/<name>` with the modification time `seconds` after the epoch.
    func write(_ name: String, _ text: String, modified seconds: Double) throws {
        try write(name, text)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: sources + "/" + name)
    }

    /// The display name of the library rebuilt last, loaded from a copy at a new path (a path loaded before would
    /// give the image loaded then).
    func displayName() throws -> String? {
        let copy = root + "/loaded-\(UUID().uuidString).so"
        try FileManager.default.copyItem(atPath: build + "/libShadowy.so", toPath: copy)
        return try PluginLoader.load(copy).get().manifest.displayName
    }

    /// Rebuilds the feature: how (`shadow`, `replay`) and the new library's display name, or the errors.
    func rebuild() throws -> [String?] {
        let outcome = builder.rebuild(feature: "Shadowy")
        return [outcome.method, outcome.library == nil ? outcome.errors.joined() : try displayName()]
    }

    /// Runs `body` with a new repository on a thread of its own (compilers block), then deletes the repository.
    static func with<T: Sendable>(_ body: @escaping @Sendable (ShadowyRepository) throws -> T) async throws -> T {
        try await BlockingWork.run {
            let repository = try ShadowyRepository()
            defer { try? FileManager.default.removeItem(atPath: repository.root) }
            return try body(repository)
        }
    }

    /// The modification time of SwiftPM's object of `Greeting.swift`, which a shadow build must not write.
    func swiftPMObjectStamp() throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: build + "/Shadowy.build/Greeting.swift.o")[.modificationDate]
            as? Date
    }

    /// One module cache and one index store for every repository of the test process, as SwiftPM shares them across a
    /// package's targets, filled by one compile before any repository builds: each repository would otherwise build
    /// Glibc's and Foundation's modules and index the system modules again (several seconds of CPU each; compiles
    /// that start together on cold caches each do all of it), which is not what these tests are about.
    private static let caches: String = {
        let folder = Scratch.folder("shadow-caches").path
        let source = folder + "/Warm.swift"
        try? "import Foundation\nimport MicroappSDK\n".write(toFile: source, atomically: true, encoding: .utf8)
        // A failure here shows again, with its reason, in the first repository's build.
        _ = try? Swappy.swiftc(
            ["-module-name", "Warm", "-c", source, "-o", folder + "/Warm.o"]
                + compileArguments(modules: folder + "/Modules", caches: folder).filter { $0 != "-incremental" })
        return folder
    }()

    /// The arguments SwiftPM gives each compile of a debug build, for a module whose dependencies' interfaces are in
    /// `modules`, with the module cache and index store in `caches`.
    private static func compileArguments(modules: String, caches: String) -> [String] {
        let runner = Swappy.buildDirectory
        return [
            "-parse-as-library", "-incremental", "-I", modules, "-I", runner + "/Modules", "-Xcc",
            "-fmodule-map-file=\(runner)/CMicroappABI.build/module.modulemap", "-module-cache-path",
            caches + "/ModuleCache", "-enable-batch-mode", "-serialize-diagnostics", "-index-store-path",
            caches + "/index/store", "-Onone", "-j2", "-parseable-output", "-swift-version", "6", "-g",
        ]
    }

    private func writePlan() throws {
        let runner = Swappy.buildDirectory
        let common = Self.compileArguments(modules: build + "/Modules", caches: Self.caches)
        var commands: [String] = []
        var links: [String] = []
        for (module, folder) in [("Shadowy", sources), ("ShadowyPlugin", root + "/Plugins/Shadowy/Entry")] {
            let objects = build + "/\(module).build"
            let files = PluginBuilder.sources(in: folder).sorted()
            try (files.joined(separator: "\n") + "\n").write(
                toFile: objects + "/sources", atomically: true, encoding: .utf8)
            var map: [String: [String: String]] = ["": ["swift-dependencies": objects + "/primary.swiftdeps"]]
            for file in files {
                let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
                map[file] = [
                    "dependencies": objects + "/\(name).d", "object": objects + "/\(name).swift.o",
                    "swiftmodule": objects + "/\(name)~partial.swiftmodule",
                    "swift-dependencies": objects + "/\(name).swiftdeps", "diagnostics": objects + "/\(name).dia",
                ]
                links.append(objects + "/\(name).swift.o")
            }
            // SwiftPM's link list also has `<module>.swiftmodule.o` (the module wrapped for the debugger), made by a
            // command of its own that a replay does not run: left out here.
            try JSONEncoder().encode(map).write(to: URL(fileURLWithPath: objects + "/output-file-map.json"))
            let arguments =
                [
                    "/usr/bin/env", "swiftc", "-module-name", module, "-emit-dependencies", "-emit-module",
                    "-emit-module-path", build + "/Modules/\(module).swiftmodule", "-output-file-map",
                    objects + "/output-file-map.json", "-c", "@" + objects + "/sources", "-emit-objc-header",
                    "-emit-objc-header-path", objects + "/include/\(module)-Swift.h",
                ] + common
            let outputs = map.values.compactMap { $0["object"] } + [build + "/Modules/\(module).swiftmodule"]
            commands.append(Self.command("\(module)-x86_64-unknown-linux-gnu-debug.module", arguments, outputs))
        }
        try (links.joined(separator: "\n") + "\n").write(
            toFile: build + "/Shadowy.product/Objects.LinkFileList", atomically: true, encoding: .utf8)
        let link = [
            "/usr/bin/env", "swiftc", "-L", runner, "-o", build + "/libShadowy.so", "-module-name", "Shadowy",
            "-lMicroappSDK", "-emit-library", "-Xlinker", "-rpath=\(runner)",
            "@" + build + "/Shadowy.product/Objects.LinkFileList", "-g",
        ]
        commands.append(Self.command("Shadowy-x86_64-unknown-linux-gnu-debug.dylib", link, [build + "/libShadowy.so"]))
        try ("client:\n  name: basic\ncommands:\n" + commands.joined()).write(
            toFile: root + "/.build/debug.yaml", atomically: true, encoding: .utf8)
    }

    /// One command of a SwiftPM manifest, as SwiftPM writes it: its name, then its keys, arrays as JSON.
    private static func command(_ name: String, _ arguments: [String], _ outputs: [String]) -> String {
        let json = { (array: [String]) in
            String(decoding: (try? JSONEncoder().encode(array)) ?? Data(), as: UTF8.self)
                .replacingOccurrences(of: "\\/", with: "/")
        }
        return "  \"C.\(name)\":\n    tool: shell\n    outputs: \(json(outputs))\n    args: \(json(arguments))\n"
    }
}

/// The watch loop's shadow build: its own incremental state beside SwiftPM's, linked with SwiftPM's entry object.
@Suite("Shadow build of a watched feature")
struct ShadowBuildTests {
    @Test(
        "once primed, a body change and then a new public func used by another file are rebuilt by the shadow into working libraries, SwiftPM's objects untouched"
    )
    func bodyAndInterfaceChanges() async throws {
        let names = try await ShadowyRepository.with { repository in
            // Before priming: SwiftPM's plan replayed.
            try repository.write("Greeting.swift", #"func greeting() -> String { "Hi" }"#)
            var names = try repository.rebuild()
            repository.builder.primeShadow(feature: "Shadowy")
            let stamp = try repository.swiftPMObjectStamp()

            try repository.write("Greeting.swift", #"func greeting() -> String { "Howdy" }"#)
            names += try repository.rebuild()

            try repository.write(
                "Greeting.swift",
                #"func greeting() -> String { "Howdy" }"# + "\n" + #"public func farewell() -> String { ", bye" }"#)
            try repository.write(
                "Feature.swift",
                ShadowyRepository.feature.replacingOccurrences(of: "greeting()", with: "greeting() + farewell()"))
            names += try repository.rebuild()
            names.append(try repository.swiftPMObjectStamp() == stamp ? "untouched" : "written")
            return names
        }
        #expect(
            names == ["replay", "Hi", "shadow", "Howdy", "shadow", "Howdy, bye", "untouched"],
            "method and display name after each save")
    }

    @Test(
        "a file saved again within the second of the save compiled last is compiled again, by the replay and by the shadow (the driver's record keeps whole seconds)"
    )
    func savesWithinOneSecond() async throws {
        let names = try await ShadowyRepository.with { repository in
            var names: [String?] = []
            for (index, greeting) in ["Hi", "Hey", "Howdy", "Hello"].enumerated() {
                // Two saves in each whole second: at .1 and at .9.
                try repository.write(
                    "Greeting.swift", "func greeting() -> String { \"\(greeting)\" }",
                    modified: 1_800_000_000 + Double(index / 2) + (index % 2 == 0 ? 0.1 : 0.9))
                names += try repository.rebuild()
                // The first two are replayed, the last two built by the shadow.
                if index == 1 { repository.builder.primeShadow(feature: "Shadowy") }
            }
            return names
        }
        #expect(names == ["replay", "Hi", "replay", "Hey", "shadow", "Howdy", "shadow", "Hello"])
    }

    @Test(
        "when the shadow's link fails (the entry's feature type was renamed), the rebuild falls back to SwiftPM's plan and reports its error; a compile error is reported by the shadow with its file and line"
    )
    func fallbackAndErrors() async throws {
        let outcomes = try await ShadowyRepository.with { repository in
            let builder = repository.builder
            _ = builder.rebuild(feature: "Shadowy")
            builder.primeShadow(feature: "Shadowy")
            try repository.write("Greeting.swift", #"func greeting() -> String { 42 }"#)
            let broken = builder.rebuild(feature: "Shadowy")
            try repository.write("Greeting.swift", #"func greeting() -> String { "Hello" }"#)
            try repository.write(
                "Feature.swift",
                ShadowyRepository.feature.replacingOccurrences(of: "enum ShadowyFeature", with: "enum ShadowyModule"))
            return [broken, builder.rebuild(feature: "Shadowy")]
        }
        #expect(
            outcomes[0].method == "shadow" && outcomes[0].library == nil,
            "\(outcomes[0].method) \(outcomes[0].steps): \(outcomes[0].errors)")
        #expect(
            outcomes[0].errors.first?.hasPrefix("Plugins/Shadowy/Sources/Greeting.swift:1:") == true,
            "the compile error names the file: \(outcomes[0].errors)")
        #expect(outcomes[1].method == "replay" && outcomes[1].library == nil)
        #expect(
            outcomes[1].errors.contains { $0.contains("Entry.swift") && $0.contains("ShadowyFeature") },
            "the replay's error names the entry's missing type: \(outcomes[1].errors)")
    }
}
