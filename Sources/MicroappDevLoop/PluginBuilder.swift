import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform

/// Rebuilds one feature's library as fast as it honestly can: from the watch loop's shadow build when it is primed
/// (`ShadowBuild`), else by replaying the exact compiler and linker commands SwiftPM planned for that feature (read
/// from its build manifest, `<scratch>/<configuration>.yaml`), and with `swift build --product <Feature>` when there is
/// no plan or the feature's files were added or removed.
public struct PluginBuilder: Sendable {
    /// How a rebuild went.
    public struct Outcome: Sendable {
        /// The library that was written, when it succeeded.
        public var library: String?
        /// `shadow` (the watch loop's own incremental build, see `ShadowBuild`), `replay` (SwiftPM's planned compiler
        /// and linker commands called directly) or `swift build`.
        public var method: String
        /// How long it took.
        public var milliseconds: Int
        /// The first compiler errors, when it failed.
        public var errors: [String]
        /// Where a replay's time went, step by step (`compile 812 ms`, `entry 140 ms`, `link 210 ms`); empty for
        /// `swift build`.
        public var steps: [String] = []
    }

    /// The repository root (its `Package.swift`).
    public let repository: String
    /// The folder the host's own build put its products in (`.build/x86_64-unknown-linux-gnu/debug`).
    public let buildDirectory: String
    /// `debug` or `release`.
    public let configuration: String
    /// The folders of the one feature of a package outside a repository (`Sources/<Name>`, `Sources/<Name>Plugin`);
    /// nil in a repository, whose features are in `Plugins/<Name>/Sources` and `Entry`.
    public let package: FeatureFolders?
    /// Whether a primed shadow build is tried before SwiftPM's plan (`ShadowBuild.isEnabled(in:)`).
    public var usesShadowBuild: Bool
    /// Reads the host's clock: how long each step took.
    public let now: @Sendable () -> ContinuousClock.Instant

    /// A builder for the package at `repository`, whose products are in `buildDirectory`; `package` names the
    /// feature's folders when they are not the repository's `Plugins/<Name>`; `environment` says whether to try the
    /// shadow build (`MICROAPP_REBUILD`) and times the steps.
    public init(
        repository: String, buildDirectory: String, configuration: String, package: FeatureFolders? = nil,
        environment: HostEnvironment
    ) {
        self.repository = repository
        self.buildDirectory = buildDirectory
        self.configuration = configuration
        self.package = package
        usesShadowBuild = ShadowBuild.isEnabled(in: environment)
        now = environment.now
    }

    /// Where `feature`'s module and entry module sources are.
    public func folders(of feature: String) -> FeatureFolders {
        package
            ?? FeatureFolders(feature: feature, in: repository)
    }

    /// The scratch folder holding `buildDirectory` (the one with `<configuration>.yaml`).
    var scratch: String? {
        var folder = buildDirectory
        for _ in 0..<3 {
            if Files.exists(folder + "/\(configuration).yaml") { return folder }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// Rebuilds `lib<feature>.so` in `buildDirectory`; the feature's folders are `folders(of: feature)`.
    public func rebuild(feature: String) -> Outcome {
        let started = now()
        if let shadow = shadowRebuild(feature: feature, library: library(of: feature)) {
            return outcome(shadow, method: "shadow", feature: feature, since: started)
        }
        return replay(feature: feature, since: started)
            ?? outcome((swiftBuild(feature: feature), []), method: "swift build", feature: feature, since: started)
    }

    /// Rebuilds `lib<feature>.so` by replaying SwiftPM's plan only; nil when there is no usable plan (no build yet,
    /// files added or removed), so the caller runs `swift build` its own way.
    public func replay(feature: String) -> Outcome? {
        replay(feature: feature, since: now())
    }

    private func replay(feature: String, since started: ContinuousClock.Instant) -> Outcome? {
        replay(feature: feature, library: library(of: feature)).map {
            outcome($0, method: "replay", feature: feature, since: started)
        }
    }

    /// The library a rebuild of `feature` writes: `lib<feature>.so` in `buildDirectory`.
    public func library(of feature: String) -> String { buildDirectory + "/" + PluginFileName.make(feature) }

    /// What a finished compiler run, `((status, output), steps)`, comes to.
    private func outcome(
        _ result: ((Int32, String), [String]), method: String, feature: String, since started: ContinuousClock.Instant
    ) -> Outcome {
        let ((status, output), steps) = result
        return Outcome(
            library: status == 0 ? library(of: feature) : nil, method: method,
            milliseconds: milliseconds(since: started),
            // Paths from the repository, as people name their files.
            errors: status == 0
                ? [] : Self.firstErrors(in: output.replacingOccurrences(of: repository + "/", with: "")),
            steps: steps)
    }

    private func milliseconds(since started: ContinuousClock.Instant) -> Int {
        Int((now() - started).wholeMilliseconds)
    }

    /// Compiles the feature's module and its entry module, then links to a temporary file renamed over the library
    /// (a new inode: the loaded copy is never written over); with the time of each step. Nil when there is no usable
    /// plan. The arguments are SwiftPM's own, so the compiler's incremental state (`-incremental`, the output file
    /// map) stays valid: only the changed files are compiled, and SwiftPM's next build does not start over. The entry
    /// module is compiled again only when it could have changed: when the feature's compiled interface (its
    /// `.swiftmodule`) changed, or the entry's own sources are newer than its outputs.
    private func replay(feature: String, library: String) -> ((Int32, String), [String])? {
        guard let (plan, compile, entry, planned) = commands(of: feature), sourcesUnchanged(feature: feature),
            let output = planned.firstIndex(of: "-o"), output + 1 < planned.count
        else { return nil }
        let temporary = library + ".tmp-\(ProcessStatus.current)"
        var link = planned
        link[output + 1] = temporary
        link = Self.withLLD(link)
        let interface = ShadowBuild.value(of: "-emit-module-path", in: compile)
        let interfaceBefore = interface.flatMap { Files.contents($0) }
        var steps: [String] = []
        for (name, step) in [("compile", compile), ("entry", entry), ("link", link)] {
            if name == "entry", let interface, let interfaceBefore,
                Files.contents(interface) == interfaceBefore,
                entryIsCurrent(
                    feature: feature, outputs: plan.outputs(of: "\(feature)Plugin-", suffix: "-\(configuration).module")
                )
            {
                steps.append("entry unchanged")
                continue
            }
            if name == "entry" { forgetEntryObjects(entry) }
            let started = now()
            let command = step.filter { $0 != "-parseable-output" && $0 != "-v" }
            let (status, text) =
                name == "compile"
                ? compiledSources(feature: feature, compile: compile).compiling { Self.run(command, in: repository) }
                : Self.run(command, in: repository)
            steps.append("\(name) \(milliseconds(since: started)) ms")
            if status != 0 {
                try? Files.remove(temporary)
                return ((status, text), steps)
            }
        }
        return (Self.rename(temporary, to: library), steps)
    }

    /// Deletes the objects of the entry module's compile `entry`, so that it compiles again: it runs only when the
    /// feature's module interface changed, and the driver judges that dependency by a whole-second time — an interface
    /// rewritten within the second of the entry's last compile looked unchanged, and a renamed feature type linked
    /// into a library with no error.
    private func forgetEntryObjects(_ entry: [String]) {
        for object in CompiledSources.objects(of: entry).values { try? Files.remove(object) }
    }

    /// SwiftPM's planned compile of the feature's module, of its entry module and link of its library.
    private func commands(of feature: String) -> (BuildPlan, [String], [String], [String])? {
        guard let scratch, let plan = BuildPlan.read(scratch + "/\(configuration).yaml"),
            let compile = plan.arguments(of: "\(feature)-", suffix: "-\(configuration).module"),
            let entry = plan.arguments(of: "\(feature)Plugin-", suffix: "-\(configuration).module"),
            let link = plan.arguments(of: "\(feature)-", suffix: "-\(configuration).dylib")
        else { return nil }
        return (plan, compile, entry, link)
    }

    /// `link` with the toolchain's lld, when it has one: it links a feature faster than the default gold (README,
    /// Benchmarks); linking has no incremental state, so another linker changes nothing SwiftPM keeps.
    private static func withLLD(_ link: [String]) -> [String] {
        guard let swiftc = link.first,
            Files.isExecutable((swiftc as NSString).deletingLastPathComponent + "/ld.lld")
        else { return link }
        return link + ["-use-ld=lld"]
    }

    /// Renames the linked `temporary` over `library` (a new inode: the loaded copy is never written over).
    private static func rename(_ temporary: String, to library: String) -> (Int32, String) {
        do {
            try FileReplacement.replace(library, with: temporary)
            return (0, "")
        } catch {
            return (1, "could not rename \(temporary) to \(library): \(error.problem.reason)")
        }
    }

    /// What the replays compiled `feature`'s module from, kept beside the shadow (see `CompiledSources`).
    private func compiledSources(feature: String, compile: [String]) -> CompiledSources {
        CompiledSources(
            record: (scratch ?? buildDirectory) + "/microapp-watch/\(configuration)/\(feature)/replayed-sources.json",
            objects: CompiledSources.objects(of: compile))
    }

    /// The watch loop's shadow build of `feature` (see `ShadowBuild`), in `<scratch>/microapp-watch/<configuration>/`.
    private func shadow(of feature: String) -> (ShadowBuild, entryOutputs: [String]?)? {
        guard usesShadowBuild, let scratch, let (plan, compile, _, link) = commands(of: feature) else {
            return nil
        }
        let folder = scratch + "/microapp-watch/\(configuration)/\(feature)"
        return (
            // Linked with lld as the replay is (the shadow linked with gold: ~50 ms more of each save's way to the screen).
            ShadowBuild(compile: compile, link: Self.withLLD(link), folder: folder),
            plan.outputs(of: "\(feature)Plugin-", suffix: "-\(configuration).module")
        )
    }

    /// Compiles `feature`'s shadow in the background at the lowest priority when it was never compiled with today's
    /// plan, so the first save is already incremental; does nothing when it was, when `MICROAPP_REBUILD=replay`, or
    /// when there is no plan. Blocks until done: call it off the main actor and the cooperative pool.
    public func primeShadow(feature: String) {
        guard let (shadow, _) = shadow(of: feature), sourcesUnchanged(feature: feature), !shadow.isPrimed else {
            return
        }
        _ = shadow.locked { shadow.compileModule(in: repository, nice: true) }
    }

    /// Rebuilds `library` from the shadow: its incremental compile of the changed files alone, linked with SwiftPM's
    /// entry object. Compile errors in the feature's sources are the outcome; nil (replay instead) when the shadow
    /// was not primed, is busy, the entry's sources changed, the files are not those planned, the compiler failed
    /// without an error in the feature's sources, or the link failed (a symbol the entry uses is gone).
    private func shadowRebuild(feature: String, library: String) -> ((Int32, String), [String])? {
        guard let (shadow, entryOutputs) = shadow(of: feature), shadow.isPrimed, sourcesUnchanged(feature: feature),
            entryIsCurrent(feature: feature, outputs: entryOutputs)
        else { return nil }
        return shadow.locked { () -> ((Int32, String), [String])? in
            var started = now()
            guard let (status, text) = shadow.compileModule(in: repository) else { return nil }
            var steps = ["compile \(milliseconds(since: started)) ms"]
            // An error in a source of the feature is the outcome (a replay would report the same); any other failure
            // (a missing input of the shadow's, say) is the shadow's own: replay instead.
            let folders = folders(of: feature)
            guard status == 0 else {
                let inSources = text.strippingEscapeSequences.split(separator: "\n").contains {
                    folders.contains(String($0)) && $0.contains(": error: ")
                }
                return inSources ? ((status, text), steps) : nil
            }
            let temporary = library + ".tmp-\(ProcessStatus.current)"
            guard let link = shadow.linkArguments(writing: temporary) else { return nil }
            started = now()
            let (linked, _) = Self.run(Self.withLLD(link), in: repository)
            steps.append("link \(milliseconds(since: started)) ms")
            guard linked == 0 else {
                try? Files.remove(temporary)
                return nil
            }
            return (Self.rename(temporary, to: library), steps)
        }
    }

    /// True when every file the entry module's compile writes exists and is newer than each of its sources
    /// (the feature's entry folder).
    private func entryIsCurrent(feature: String, outputs: [String]?) -> Bool {
        guard let outputs, !outputs.isEmpty else { return false }
        let sources = Self.sources(in: folders(of: feature).entry)
        guard let newestSource = sources.map(FileStamp.modified).max(),
            let oldestOutput = outputs.map(FileStamp.modified).min()
        else { return false }
        return oldestOutput > newestSource
    }

    /// True when the Swift files of the feature's sources folder are those SwiftPM planned with.
    private func sourcesUnchanged(feature: String) -> Bool {
        let list = buildDirectory + "/\(feature).build/sources"
        guard let planned = Files.text(list) else { return false }
        let present = Set(Self.sources(in: folders(of: feature).sources))
        let listed = Set(
            planned.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")) })
        return present == listed
    }

    /// The Swift sources SwiftPM compiles in `folder` and below, as full paths. Like SwiftPM, hidden files (an
    /// editor's `.#File.swift` lock, say) are not sources.
    public static func sources(in folder: String) -> [String] {
        let files = Files.subpaths(of: folder) ?? []
        return files.filter(isSource).map { folder + "/" + $0 }
    }

    /// Whether `path`, relative to a target's folder, names a Swift source SwiftPM compiles: `.swift`, and nothing
    /// hidden on the way.
    public static func isSource(_ path: String) -> Bool {
        path.hasSuffix(".swift") && !path.split(separator: "/").contains { $0.hasPrefix(".") }
    }

    /// `swift build --product <feature>`, its status and output (what could not start is status 127).
    private func swiftBuild(feature: String) -> (Int32, String) {
        do {
            let result = try swiftBuild(product: feature)
            return (result.status, result.output)
        } catch {
            return (127, "could not run swift build: \(error.problem.reason)")
        }
    }

    /// Runs `swift build --product <product>` in the repository, in this host's configuration and scratch folder,
    /// copying what it writes to `echo` as it comes. Every `swift build` of a feature, at start or under `--watch`, is
    /// this one: one product each (SwiftPM builds one `--product` per invocation, and a plain `swift build` would also
    /// link every benchmark, the monolith and the fuzzer). (SwiftPM's cached manifest is never stale for a feature added or removed: Package.swift
    /// declares the features, so its contents change with them.)
    package func swiftBuild(
        product: String, echo: Int32? = nil
    ) throws(SystemCallError) -> (status: Int32, output: String, command: String) {
        var arguments = ["swift", "build", "-c", configuration]
        if let scratch { arguments += ["--scratch-path", scratch] }
        arguments += ["--product", product]
        let outcome = try ChildProcess(arguments, directory: repository, output: .capture, error: .output)
            .wait(echo: echo)
        return (outcome.termination.status, outcome.text, arguments.joined(separator: " "))
    }

    /// Runs `arguments` in `folder`; the exit status (or the signal that ended it) and everything it wrote.
    static func run(_ arguments: [String], in folder: String) -> (Int32, String) {
        do {
            let outcome = try ChildProcess(arguments, directory: folder, output: .capture, error: .output).wait()
            return (outcome.termination.status, outcome.text)
        } catch {
            return (127, "could not run \(arguments[0]): \(error.problem.reason)")
        }
    }

    /// What people read of compiler output (`swift build`'s or a replayed `swiftc`'s, coloured or not), shared by every
    /// front end: the first few distinct errors as `file:line:col: error: …`, each followed by the quoted source line it
    /// points at (`83 | let x: Int = "a"`), then the notes (`… declared here`), never before an error. Terminal escape
    /// sequences are removed. Positionless `error:` lines (a failed link) stand in when no error has a position; the
    /// last lines when there is no error at all. The compiler reports an error once per job, so repeats are dropped.
    public static func firstErrors(in output: String, limit: Int = 3) -> [String] {
        let lines = output.strippingEscapeSequences.split(separator: "\n").map(String.init)
        var errors: [String] = []
        var notes: [String] = []
        var counts = (errors: 0, notes: 0)
        var plain: [String] = []
        var seen: Set<String> = []
        for (index, line) in lines.enumerated() where !line.hasPrefix(" ") && !line.contains(" | ") {
            guard let (kind, position) = heading(line), seen.insert(line).inserted else { continue }
            guard let position else {
                if kind == "error" && !line.contains("command failed") { plain.append(line) }
                continue
            }
            // `path:line:column: error: …`, then the source around it as `  83 | code`.
            var entry = [line]
            if let quoted = lines[(index + 1)...].prefix(6).first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(position) | ")
            }) {
                entry.append(quoted.trimmingCharacters(in: .whitespaces))
            }
            switch kind {
            case "error" where counts.errors < limit:
                errors += entry
                counts.errors += 1
            case "note" where counts.notes < limit:
                notes += entry
                counts.notes += 1
            default: break
            }
        }
        if errors.isEmpty { errors = Array(plain.prefix(limit)) }
        return errors.isEmpty ? Array(lines.suffix(5)) : errors + notes
    }

    /// The kind (`error`, `note`, `warning`) of a diagnostic heading and the line number it points at, if it has a
    /// position (`path:83:31: error: …`); nil for a line that is not a heading.
    private static func heading(_ line: String) -> (kind: String, line: Int?)? {
        for kind in ["error", "note", "warning"] {
            if let marker = line.range(of: ": \(kind): ") {
                let position = line[..<marker.lowerBound].split(separator: ":")
                let number = position.count >= 3 ? Int(position[position.count - 2]) : nil
                return (kind, number.flatMap { _ in Int(position[position.count - 1]) != nil ? number : nil })
            }
            if line.hasPrefix("\(kind): ") { return (kind, nil) }
        }
        return nil
    }
}
