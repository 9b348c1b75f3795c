import CommandLineSpec
import Foundation
import MicroappCore
import MicroappHost
import MicroappLoading
import MicroappPlatform
import Synchronization

/// `microapp lock [DIR]`: write `DIR/plugins.lock` with the SHA-256 of every usable library in DIR.
enum LockCommand: Command {
    static let isolation = OptionSpec.value(
        "--isolation", "MODE",
        .choice(
            of: Isolation.self, noun: "a setting of a lock entry",
            fix: "write --isolation process or --isolation none (auto is what an entry without it does)"),
        help: """
            write this setting (process or none) into every library's entry: where it runs
            under --isolation auto (without it, entries keep the setting they had)
            """)

    static let forget = OptionSpec.flag(
        "--forget",
        help: """
            forget that DIR had a plugins.lock (you removed it on purpose): loading it
            no longer warns that its lock is missing; writes no lock
            """)

    static let declaration = CommandSpec(
        "microapp lock", summary: "write DIR/plugins.lock (SHA-256 per library); then only those load",
        operands: [.optional("DIR")],
        options: [CommonOptions.noBuild, CommonOptions.probeUnsandboxed, isolation, forget],
        discussion: """
            Writes DIR/plugins.lock (default: the folder of this executable, an installed app's plugins/) with the SHA-256 of each library in
            DIR. While it exists, a library in DIR that is not in it or does not match is refused; run
            `microapp lock` again after rebuilding, or delete the file. Each library is read once into a private
            copy, which is hashed and examined in a sandboxed child process (as `microapp probe` does): no code
            of the libraries runs in this process. Exit 2, writing nothing, when a library in DIR does not load
            (also when this kernel lacks a sandbox mechanism, unless --allow-unsandboxed). A folder once locked is
            remembered ($XDG_STATE_HOME/microapp/locked-folders.json), so a lock deleted later is warned about;
            --forget forgets it, and folders that no longer exist are forgotten whenever the record is written.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try await run(arguments, rules: RunPolicy.rules(arguments, host: host))
    }

    @MainActor
    static func run(_ arguments: Arguments, rules: ResolutionRules) async throws(Problem) -> ExitCode {
        let locations = PluginLocations.current()
        let folder = arguments.operands.first ?? locations.pluginDirectory.path
        if arguments[forget] { return try forgetting(folder, environment: arguments.environment) }
        // The pipeline's first step: the folder's libraries, less a build folder's leftovers (nothing built).
        let request = PluginSetRequest(locations: locations, directories: [folder], environment: arguments.environment)
        let found = await PluginSetLoader.find(request)
        let paths = found.paths
        if let leftover = found.leftover { Console.err(leftover.note, label: "note") }
        guard !paths.isEmpty else {
            throw Problem.usage(
                "no plugin libraries in \(folder)", fix: "build them first (`swift build`) or name another folder")
        }
        let setting = arguments[isolation]
        guard let examined = await examined(paths, in: folder, arguments: arguments, doing: "locking") else {
            return .invalidPluginSet
        }
        // A pin vouches for what people will read: names that pass for another's, or cannot be read, are not pinned.
        let named = examined.compactMap { library in library.report.manifest.map { (library.path, $0) } }
        let misnamed = DependencyResolver.nameProblems(named, rules: rules)
        guard misnamed.isEmpty else {
            Console.report(misnamed.map(\.problem))
            Console.err("microapp: not locking \(folder): fix the libraries above first")
            return .invalidPluginSet
        }
        // Entries keep the isolation they had, unless --isolation sets it; a lock that cannot be read keeps none.
        let previous = try? PluginLock.load(in: folder)
        do {
            let libraries = examined.compactMap { library in
                library.report.manifest.map { (path: library.path, feature: $0.id, sha256: library.sha256) }
            }
            try PluginLock(libraries: libraries, isolation: setting, keeping: previous ?? nil).write(in: folder)
        } catch {
            Console.err(
                Problem(
                    code: .lockNotWritten, subject: "",
                    reason: "could not write \(folder)/\(PluginLock.fileName): \(error)",
                    fix: "check the folder's permissions")
            )
            return .usage
        }
        // So that a lock deleted later is noticed (a warning when the folder is loaded without one).
        let history = LockHistory(environment: arguments.environment)
        do {
            try history.record(folder)
        } catch {
            Console.err(
                Problem(
                    code: .lockHistoryNotWritten, subject: "",
                    reason: "could not write \(history.file): \(error.localizedDescription)",
                    fix: "make its folder writable, or a deleted \(PluginLock.fileName) in \(folder) goes unnoticed"),
                label: "warning"
            )
        }
        for library in examined {
            guard let manifest = library.report.manifest else { continue }
            Console.out(
                "  \((library.path as NSString).lastPathComponent)  \(manifest.id) v\(manifest.version)  sha256 \(library.sha256.prefix(16))…"
                    .sanitized)
        }
        Console.out("locked \(examined.count) libraries in \(folder)/\(PluginLock.fileName)")
        return .ok
    }

    /// `lock DIR --forget`: the record of locked folders forgets `folder` (and the folders that no longer exist).
    private static func forgetting(_ folder: String, environment: HostEnvironment) throws(Problem) -> ExitCode {
        let history = LockHistory(environment: environment)
        do {
            let forgotten = try history.forget(folder)
            Console.out(
                forgotten
                    ? "forgot that \(folder) had a \(PluginLock.fileName): loading it no longer warns that it is missing"
                    : "\(folder) was not remembered as locked: nothing to forget")
            return .ok
        } catch {
            throw Problem(
                code: .lockHistoryNotWritten, subject: "",
                reason: "could not write \(history.file): \(error.localizedDescription)",
                fix: "make its folder writable")
        }
    }

    /// `paths`, the libraries of `folder`, as a lock pins them: no library runs in this process; each is read once
    /// into a private copy, whose digest is pinned, and its manifest comes from a sandboxed probe process that maps
    /// that copy. Nil, the problems printed (`microapp: not <doing> <folder>: …`), when one cannot be examined or
    /// does not load.
    @MainActor
    static func examined(
        _ paths: [String], in folder: String, arguments: Arguments, doing: String
    ) async -> [Examined]? {
        let sandbox = SandboxCheck.here(arguments)
        if let refusal = sandbox.probeRefusal(of: folder) {
            Console.report([refusal])
            Console.err("microapp: not \(doing) \(folder): its libraries cannot be examined here")
            return nil
        }
        let probe = PluginProbe(environment: arguments.environment, allowingUnsandboxed: sandbox.unsandboxed)
        let examined = await BlockingWork.run { examine(paths, with: probe) }
        let problems = examined.compactMap { $0.report.problem }
        guard problems.isEmpty else {
            Console.report(problems)
            Console.err("microapp: not \(doing) \(folder): fix the libraries above first")
            return nil
        }
        return examined
    }

    /// One library as the lock sees it: the digest of the bytes read once, and the sandboxed probe's report on them.
    struct Examined: Sendable {
        var path: String
        var sha256: String
        var report: ProbeReport
    }

    /// Copies each library once and has a sandboxed `probe` process examine the copy, two at a time. Blocks.
    private static func examine(_ paths: [String], with probe: PluginProbe) -> [Examined] {
        let results = Mutex([Examined?](repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let path = paths[index]
            let examined: Examined
            switch LibraryCopy.make(path) {
            case .success(let copy):
                examined = Examined(path: path, sha256: copy.sha256, report: probe.report(for: copy))
            case .failure(let problem):
                examined = Examined(
                    path: path, sha256: "", report: ProbeReport(file: path, verdict: "refused", problem: problem))
            }
            results.withLock { $0[index] = examined }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}
