import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// `microapp routes`, `microapp doctor` and `microapp probe`: look at plugins without running the app.
enum InspectCommands {
    /// One route in `routes --json`.
    struct RouteRow: Codable {
        var pattern: String
        var feature: String
        var requiresSession: Bool
        var isSignIn: Bool
        var running: Bool
        /// Where the feature runs: `process` or `none`.
        var isolation: Isolation
        /// Why there (`from the plugin folder /opt/extra`).
        var isolationReason: String
        /// What the feature declares it does beyond its requirements.
        var capabilities: [String]
    }

    @MainActor
    static func routes(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let set = try await LoadedPluginSet.load(arguments, host: host)
        defer { set.endIsolated() }
        let rows = set.placements.flatMap { placement in
            let image = placement.plugin
            return image.manifest.routes.map {
                RouteRow(
                    pattern: $0.pattern, feature: image.manifest.id, requiresSession: $0.requiresSession,
                    isSignIn: $0.isSignIn, running: set.resolution.startOrder.contains(image.manifest.id),
                    isolation: placement.decision.mode, isolationReason: placement.why,
                    capabilities: image.manifest.capabilities.map(\.rawValue))
            }
        }
        if arguments[CommonOptions.json] {
            rows.forEach(Console.json)
        } else {
            let width = max(20, (rows.map(\.pattern.count).max() ?? 0) + 2)
            Console.out("ROUTE".padding(toLength: width, withPad: " ", startingAt: 0) + "FEATURE      GUARDS")
            for row in rows {
                let guards = [
                    row.requiresSession ? "session" : nil, row.isSignIn ? "sign-in" : nil,
                    row.running ? nil : "DISABLED",
                ]
                .compactMap { $0 }.joined(separator: ", ")
                Console.out(
                    row.pattern.padding(toLength: width, withPad: " ", startingAt: 0)
                        + row.feature.padding(toLength: 13, withPad: " ", startingAt: 0) + guards)
            }
            Console.out("")
            Console.out("FEATURE      ISOLATION   CAPABILITIES   WHY")
            for placement in set.placements {
                let manifest = placement.plugin.manifest
                let capabilities = manifest.capabilities.map(\.rawValue).joined(separator: ",")
                Console.out(
                    manifest.id.sanitized.padding(toLength: 13, withPad: " ", startingAt: 0)
                        + placement.decision.mode.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
                        + (capabilities.isEmpty ? "-" : capabilities).sanitized.padding(
                            toLength: 15, withPad: " ", startingAt: 0) + placement.why.sanitized)
            }
        }
        // On stderr also beside JSON rows: a library that did not load is said, not left out silently.
        Console.report(set.problems)
        return .ok
    }

    /// One library in `doctor --json`.
    struct DoctorRow: Codable {
        var feature: String?
        var version: Int?
        var file: String
        var verdict: String
        var code: String?
        var reason: String?
        var fix: String?
        /// Where the feature runs (`process` or `none`) and why; absent for a library that did not load.
        var isolation: Isolation?
        var isolationReason: String?
        /// What the feature declares it does beyond its requirements; absent for a library that did not load.
        var capabilities: [String]?
        /// How far the host trusts it (`untrusted`, `pinned`, `own`); absent for a library that did not load.
        var trust: String?
        /// Each requirement with its status and grant (as `graph --format json` has them); absent for a library
        /// that did not load.
        var requirements: [GraphCommand.Edge]?
    }

    @MainActor
    static func doctor(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let directories = arguments.operands.isEmpty ? nil : arguments.operands
        let set = try await LoadedPluginSet.load(arguments, host: host, directories: directories)
        defer { set.endIsolated() }
        var rows = set.placements.map { placement -> DoctorRow in
            let image = placement.plugin
            let problem =
                set.resolution.disabled[image.manifest.id]
                ?? set.problems.first { $0.subject == image.path }
            return DoctorRow(
                feature: image.manifest.id, version: image.manifest.version, file: image.path,
                verdict: problem == nil ? "ok" : "refused", code: problem?.code.rawValue, reason: problem?.reason,
                fix: problem?.fix, isolation: placement.decision.mode, isolationReason: placement.why,
                capabilities: image.manifest.capabilities.map(\.rawValue),
                trust: set.resolution.trust[image.manifest.id]?.rawValue,
                requirements: set.resolution.requirements[image.manifest.id]?.map(GraphCommand.Edge.init))
        }
        let loadedPaths = Set(set.placements.map(\.plugin.path))
        for problem in set.problems where !loadedPaths.contains(problem.subject) && problem.subject.hasSuffix(".so") {
            rows.append(
                DoctorRow(
                    file: problem.subject, verdict: "refused", code: problem.code.rawValue, reason: problem.reason,
                    fix: problem.fix))
        }
        if arguments[CommonOptions.json] {
            rows.forEach(Console.json)
        } else {
            Console.out("FEATURE       VERSION  VERDICT  FILE")
            for row in rows {
                Console.out(
                    (row.feature ?? "-").padding(toLength: 14, withPad: " ", startingAt: 0)
                        + (row.version.map { "v\($0)" } ?? "-").padding(toLength: 9, withPad: " ", startingAt: 0)
                        + row.verdict.padding(toLength: 9, withPad: " ", startingAt: 0) + row.file.sanitized)
                if let mode = row.isolation, let why = row.isolationReason {
                    let capabilities =
                        row.capabilities.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "none"
                    Console.out(
                        "    isolation \(mode.rawValue) (\(why.sanitized)); capabilities: \(capabilities.sanitized)")
                }
                if let trust = row.trust, let requirements = row.requirements, !requirements.isEmpty {
                    let grants = requirements.map { edge in
                        edge.grant == "refused"
                            ? "\(edge.key) ✗ not granted (granted to: \(edge.grantedTo ?? "?"))"
                            : "\(edge.key) (\(edge.grant == "explicit" ? "granted by name" : edge.grant ?? "?"))"
                    }
                    Console.out("    trust \(trust); grants: \(grants.joined(separator: ", ").sanitized)")
                }
                if let reason = row.reason, let fix = row.fix {
                    Console.out("    \(reason.sanitized)\n    to fix: \(fix.sanitized)")
                }
            }
            if rows.isEmpty { Console.out("(no plugin libraries found)") }
            Console.out(Sandbox.support.summary)
            Console.out(ProcessNamespaces.summary(arguments.environment.variables))
        }
        let listProblems = featureListProblems(arguments)
        return rows.contains { $0.verdict != "ok" } || set.problems.count > 0 || !listProblems.isEmpty
            ? .invalidPluginSet : .ok
    }

    /// Where Package.swift's feature list and Plugins/ disagree, for `doctor` run from the repository without a DIR:
    /// told on stderr unless the start-up build already told them (it checks the list first).
    private static func featureListProblems(_ arguments: Arguments) -> [Problem] {
        let locations = PluginLocations.current()
        guard arguments.operands.isEmpty, let repository = locations.repository,
            let list = FeatureList.read(repository: repository)
        else { return [] }
        let problems = list.problems(in: repository, environment: arguments.environment)
        if arguments[CommonOptions.noBuild] { problems.forEach { Console.err($0) } }
        return problems
    }

    @MainActor
    static func probe(_ arguments: Arguments) async throws(Problem) -> ExitCode {
        // A standby probe is always the sandboxed probe process (both flags are internal).
        if arguments[ProbeCommand.sandboxed] || arguments[ProbeCommand.standby] { return try probeHere(arguments) }
        guard arguments.operands.count == 1, let file = arguments.operands.first else {
            throw Problem.usage("probe takes exactly one FILE", fix: "write `microapp probe path/to/libFeature.so`")
        }
        // The library runs in a sandboxed child only: here it is read once into a private copy, which the child maps.
        let sandbox = SandboxCheck.here(arguments)
        let result: ProbeReport
        if let refusal = sandbox.probeRefusal(of: file) {
            result = ProbeReport(file: file, verdict: "refused", problem: refusal)
        } else {
            let probe = PluginProbe(environment: arguments.environment, allowingUnsandboxed: sandbox.unsandboxed)
            result = await BlockingWork.run {
                switch LibraryCopy.make(file) {
                case .success(let copy): return probe.report(for: copy)
                case .failure(let problem): return ProbeReport(file: file, verdict: "refused", problem: problem)
                }
            }
        }
        return show(result, file: file, arguments: arguments)
    }

    /// The sandboxed probe process (`probe --sandboxed`, started by a host): sandboxes itself while it has one
    /// thread, then loads the library, registers it and draws its first screens; prints the report.
    @MainActor
    private static func probeHere(_ arguments: Arguments) throws(Problem) -> ExitCode {
        let file: String
        if arguments[ProbeCommand.standby] {
            // Started ahead of time by a host that swaps plugins: the library's path arrives on stdin; none (the
            // host ended or no longer needs it) ends this process quietly.
            guard arguments.operands.isEmpty, let line = PluginProbe.awaitLibrary() else { return .ok }
            file = line
        } else {
            guard arguments.operands.count == 1, let operand = arguments.operands.first else {
                throw Problem.usage("probe takes exactly one FILE", fix: "write `microapp probe path/to/libFeature.so`")
            }
            file = operand
        }
        let unsandboxed = arguments.environment["MICROAPP_ALLOW_UNSANDBOXED"] == "1"
        let result =
            PluginProbe.sandbox(file, allowingUnsandboxed: unsandboxed).map {
                ProbeReport(file: file, verdict: "refused", problem: $0)
            } ?? PluginProbe.examine(file)
        return show(result, file: file, arguments: arguments)
    }

    /// Prints a probe's report (JSON, or the manifest as text, or the problem) and answers the exit code.
    @MainActor
    private static func show(_ result: ProbeReport, file: String, arguments: Arguments) -> ExitCode {
        if arguments[CommonOptions.json] {
            Console.json(result)
        } else if let manifest = result.manifest {
            Console.out("\(file): ok — \(manifest.displayName) (\(manifest.id)) v\(manifest.version)")
            for route in manifest.routes {
                Console.out("  route    \(route.pattern)\(route.requiresSession ? "  [session]" : "")")
            }
            for need in manifest.requirements {
                Console.out(
                    "  needs    \(need.key): \(need.type) (\(need.access.rawValue)\(need.optional ? ", optional" : ""))"
                )
            }
            for offer in manifest.provides { Console.out("  provides \(offer.key): \(offer.type)") }
            Console.out("  checked      \((result.checked ?? []).joined(separator: ", "))")
            if let notChecked = result.notChecked, !notChecked.isEmpty {
                Console.out("  not checked  \(notChecked.joined(separator: ", "))")
            }
        } else if let problem = result.problem {
            Console.report([problem])
        }
        return result.verdict == "ok" ? .ok : .invalidPluginSet
    }
}

/// `microapp routes`: every route of the plugins that load, its owner and guards.
enum RoutesCommand: Command {
    static let declaration = CommandSpec(
        "microapp routes", summary: "list the routes of the plugins, their owners and guards",
        options: [
            CommonOptions.json, CommonOptions.plugins, CommonOptions.only, CommonOptions.noBuild,
            CommonOptions.noProbe, CommonOptions.allowUnsandboxed, CommonOptions.grant,
        ],
        discussion: """
            Lists every route of the plugins that load: pattern, owning feature, and guards
            (session = needs a signed-in person; sign-in = where signed-out people are sent).
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try await InspectCommands.routes(arguments, host: host)
    }
}

/// `microapp doctor [DIR]...`: one row per library, exit 2 when anything is wrong.
enum DoctorCommand: Command {
    static let strict = OptionSpec.flag(
        "--strict", help: "a library whose feature declares a capability --allow does not name is refused")

    static let declaration = CommandSpec(
        "microapp doctor", summary: "check a plugin folder; exit 2 if anything is wrong",
        operands: [.repeatable("DIR")],
        options: [
            CommonOptions.json, CommonOptions.noBuild, CommonOptions.noProbe, CommonOptions.allow,
            CommonOptions.allowUnsandboxed, CommonOptions.grant, strict,
        ],
        discussion: """
            Loads every plugin in each DIR (default: the plugins beside this executable), resolves them together,
            and prints one row per library: feature, version, file, verdict and reason. Exit 2 if any is bad.
            In the repository, the plugin libraries missing or older than their sources are built first, as run
            does (stderr says which), so it checks what run would load; --no-build checks them as they are.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try await InspectCommands.doctor(arguments, host: host)
    }
}

/// `microapp probe FILE`: one library, examined in a sandboxed child process.
enum ProbeCommand: Command {
    static let standby = OptionSpec.flag(
        "--standby", help: "wait for the library's path on standard input", hidden: true)
    static let sandboxed = OptionSpec.flag("--sandboxed", help: "be the sandboxed probe process itself", hidden: true)

    static let declaration = CommandSpec(
        "microapp probe", summary: "load one library and print what it says about itself",
        operands: [.optional("FILE")],
        options: [CommonOptions.json, CommonOptions.probeUnsandboxed, standby, sandboxed],
        discussion: """
            Loads the library FILE in a sandboxed child process (the sandbox of an isolated feature: it reads
            only the library and the runtime, writes nothing, no network), checks its entry (SDK version, ABI
            version, size, manifest), draws its first screens on its mocks, and prints its manifest. Nothing of
            the library runs in this process. Exit 0 if it is usable, 2 if not (also when this kernel lacks a
            sandbox mechanism, unless --allow-unsandboxed).
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try await InspectCommands.probe(arguments)
    }
}
