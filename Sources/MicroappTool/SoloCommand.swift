import MicroappCore
import MicroappDevLoop
import MicroappPlatform
import MicroappSDK
import MicroappTerminal

/// `microapp solo FEATURE`: one feature alone, its requirements met by the mocks it ships, routes into other
/// features shown as stubs. The fast loop of a feature team: only that feature's library is built and loaded.
enum SoloCommand {
    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(UsageError) -> ExitCode {
        let ui = try FrontEnd.chosen(by: arguments)
        let settleTimeout = try FrontEnd.settleTimeout(from: arguments)
        guard arguments.operands.count == 1, let name = arguments.operands.first else {
            throw UsageError(
                "solo takes exactly one FEATURE", fix: "write `microapp solo Characters` (folder, id or display name)")
        }
        let choices = try mockChoices(arguments.values("--mock"))
        guard let library = try await FeatureLibrary.loadReporting(name, arguments: arguments) else {
            return .invalidPluginSet
        }
        let manifest = library.image.manifest
        let mocks = library.feature.mocks()
        let container: Container
        do {
            container = try Container.mocked(mocks, choices: choices)
        } catch {
            throw UsageError("\(manifest.displayName): --mock \(error.reason)", fix: error.fix)
        }
        let missing = mocks.missing(in: manifest)
        guard missing.isEmpty else {
            Console.report(missing.map { unmocked($0, of: library) })
            Console.err("microapp: \(manifest.displayName) cannot run alone until every requirement has a mock")
            return .invalidPluginSet
        }
        let resolution = PluginSet.resolve(
            [library.image], container: container, rules: try RunPolicy.rules(arguments, host: host))
        let placement = library.placement
        let runtime = AppRuntime(
            sources: [placement.source], resolution: resolution, container: container,
            options: AppRuntime.Options(
                name: host.name, home: host.home, mode: .solo, mocks: mocks.inUse(choices),
                foreign: ForeignRoutes(names: library.others, signIn: host.signInFallback),
                isolation: [manifest.id: placement.running]))
        let problems = resolution.problems + runtime.startProblems
        guard problems.isEmpty, !runtime.runningFeatures.isEmpty else {
            Console.report(problems)
            Console.err("microapp: \(manifest.displayName) did not start on its mocks")
            return .invalidPluginSet
        }
        runtime.open(arguments.value("--open"))
        // A failed start-up build shows as one under --watch does: the box, and an `error` line in JSON.
        runtime.announce(
            (library.buildFailure.map { [$0] } ?? []) + resolution.warnings.map(\.problem.notice)
                + (placement.shortfall.map { [$0] } ?? []))
        let watch =
            arguments.flag("--watch")
            ? PluginBuilder.watch(
                runtime, images: [library.image],
                directories: PluginLocations.current().directories(adding: arguments.values("--plugins")),
                probing: !arguments.flag("--no-probe")) : nil
        await ui.run(runtime, settleTimeout: settleTimeout)
        watch?.stop()
        return .ok
    }

    /// `--mock KEY=VARIANT` options by key; the last one for a key wins.
    static func mockChoices(_ values: [String]) throws(UsageError) -> [String: String] {
        var choices: [String: String] = [:]
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw UsageError(
                    "--mock \(value) is not KEY=VARIANT", fix: "write e.g. `--mock characters.page=failing`")
            }
            choices[parts[0]] = parts[1]
        }
        return choices
    }

    /// A requirement with no mock: which key, and how to ship the mock beside the feature.
    private static func unmocked(_ requirement: Requirement, of library: FeatureLibrary) -> Diagnostic {
        let add =
            requirement.kind == .service
            ? "mocks.service(<the DependencyKey '\(requirement.key)'>, Service { request in … })"
            : "mocks.state(<the DependencyKey '\(requirement.key)'>, <its first value>)"
        return Diagnostic(
            .missingRequirement, subject: library.image.manifest.id,
            reason:
                "it needs \(requirement.key) (\(requirement.kind.rawValue) \(requirement.type)) and ships no mock for it",
            fix:
                "add the mock beside the feature: `extension \(library.typeName) { @MainActor public static func mocks() -> Mocks { var mocks = Mocks(); \(add); return mocks } }`"
        )
    }
}
