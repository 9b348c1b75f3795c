import Foundation
import MicroappCore
import MicroappPlatform

/// The watch loop's own incremental build of one feature, beside SwiftPM's: SwiftPM's compile arguments without
/// the module, header and index outputs, with an output file map of its own under
/// `<scratch>/microapp-watch/<configuration>/<Feature>/`. SwiftPM's arguments make the driver run an emit-module job
/// over every file (the same cost whatever changed) even when one file changed, and the driver starts over when the
/// arguments of its build record change, so that job cannot be left out of SwiftPM's own state: this state is
/// separate, and SwiftPM's is never written. The objects are linked with SwiftPM's entry and module-wrap objects.
/// Its first compile compiles every file (`PluginBuilder.primeShadow`, in the background); until then, or when anything about it does
/// not fit (a link error, the entry's sources changed, another build of it running), the caller replays SwiftPM's
/// plan as before.
struct ShadowBuild {
    /// SwiftPM's compile arguments of the feature's module.
    let compile: [String]
    /// SwiftPM's link arguments of the feature's library.
    let link: [String]
    /// The shadow's folder.
    let folder: String

    /// The shadow of the module SwiftPM compiles with `compile` and links with `link`, kept in `folder`.
    init(compile: [String], link: [String], folder: String) {
        self.compile = compile
        self.link = link
        self.folder = folder
    }

    /// False when `environment`'s `MICROAPP_REBUILD=replay` asks for SwiftPM's plan only (to compare, or to rule the
    /// shadow out).
    static func isEnabled(in environment: HostEnvironment) -> Bool { environment["MICROAPP_REBUILD"] != "replay" }

    /// The shadow's output file map.
    private var outputFileMap: String { folder + "/output-file-map.json" }

    /// SwiftPM's output file map (`-output-file-map`).
    private var swiftPMMap: String? { Self.value(of: "-output-file-map", in: compile) }

    /// The compile arguments: SwiftPM's without `-emit-module(-path)`, `-emit-objc-header(-path)`, `-index-store-path`,
    /// `-serialize-diagnostics` and `-parseable-output`, with the shadow's output file map.
    var arguments: [String] {
        var result: [String] = []
        var index = 0
        while index < compile.count {
            let argument = compile[index]
            index += 1
            switch argument {
            case "-emit-module", "-emit-objc-header", "-serialize-diagnostics", "-parseable-output", "-v": continue
            case "-emit-module-path", "-emit-objc-header-path", "-index-store-path": index += 1
            case "-output-file-map":
                result += [argument, outputFileMap]
                index += 1
            default: result.append(argument)
            }
        }
        return result
    }

    /// What `prime` wrote when it compiled every file with these arguments; another value means not primed.
    private var stamp: String { arguments.joined(separator: "\n") }

    /// True when the shadow compiled every file with today's arguments at least once.
    var isPrimed: Bool {
        Files.text(folder + "/primed") == stamp
    }

    /// Runs `body` holding the shadow's file lock, so no two builds of it (in this process or another) overlap; nil
    /// without running it when another holds that file lock or the shadow's folder cannot be made.
    func locked<Result>(_ body: () -> Result?) -> Result? {
        guard (try? Files.makeDirectory(folder)) != nil
        else { return nil }
        return FileLock.withExclusiveLock(folder + "/lock", body)
    }

    /// Compiles the module into the shadow's state (every file the first time, then what changed) in `repository`,
    /// at the lowest priority when `nice`; the exit status and the compiler's output, nil when the output file map
    /// cannot be written. Call it `locked`.
    func compileModule(in repository: String, nice: Bool = false) -> (Int32, String)? {
        guard writeOutputFileMap() else { return nil }
        let command =
            nice && Files.isExecutable("/usr/bin/nice")
            ? ["/usr/bin/nice", "-n", "19"] + arguments : arguments
        let sources = CompiledSources(
            record: folder + "/sources.json", objects: CompiledSources.objects(inOutputFileMap: outputFileMap))
        let result = sources.compiling { PluginBuilder.run(command, in: repository) }
        if result.0 == 0 { try? Files.replace(folder + "/primed", with: Data(stamp.utf8)) }
        return result
    }

    /// The link arguments writing `output`: SwiftPM's, with the shadow's objects in place of the feature's own in its
    /// object list, and `-z defs`, so a symbol the entry needs that the shadow no longer defines (a renamed type) fails
    /// the link instead of the load. Nil when the object list cannot be read or written.
    func linkArguments(writing output: String) -> [String]? {
        guard let list = link.firstIndex(where: { $0.hasPrefix("@") }), let objects = objectPaths(),
            let planned = Files.text(String(link[list].dropFirst())),
            let out = link.firstIndex(of: "-o"), out + 1 < link.count
        else { return nil }
        let lines = planned.split(separator: "\n").map { objects[String($0)] ?? String($0) }
        let shadowList = folder + "/Objects.LinkFileList"
        do {
            try Files.replace(shadowList, with: Data((lines.joined(separator: "\n") + "\n").utf8))
        } catch { return nil }
        var arguments = link
        arguments[list] = "@" + shadowList
        arguments[out + 1] = output
        return arguments + ["-Xlinker", "-z", "-Xlinker", "defs"]
    }

    /// SwiftPM's object of each source → the shadow's, from SwiftPM's output file map.
    private func objectPaths() -> [String: String]? {
        guard let map = swiftPMMap else { return nil }
        let objects = CompiledSources.objects(inOutputFileMap: map).values
        return objects.isEmpty ? nil : Dictionary(objects.map { ($0, relocated($0)) }) { first, _ in first }
    }

    /// Writes the shadow's output file map: SwiftPM's, each file moved from SwiftPM's folder to the shadow's. False
    /// when SwiftPM's cannot be read or the shadow's cannot be written.
    private func writeOutputFileMap() -> Bool {
        guard let map = readSwiftPMMap() else { return false }
        let moved = map.mapValues { $0.mapValues(relocated) }
        guard let data = try? JSONEncoder().encode(moved) else { return false }
        if Files.contents(outputFileMap) == data { return true }
        return Files.write(data, to: outputFileMap)
    }

    private func readSwiftPMMap() -> [String: [String: String]]? {
        guard let path = swiftPMMap, let data = Files.contents(path) else { return nil }
        return try? JSONDecoder().decode([String: [String: String]].self, from: data)
    }

    /// `path` in SwiftPM's folder of the module (the output file map's) moved to the shadow's folder.
    private func relocated(_ path: String) -> String {
        guard let map = swiftPMMap else { return path }
        let swiftPMFolder = (map as NSString).deletingLastPathComponent + "/"
        return path.hasPrefix(swiftPMFolder) ? folder + "/" + path.dropFirst(swiftPMFolder.count) : path
    }

    /// The argument after `option` in `arguments`.
    static func value(of option: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: option).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
}
