import Foundation
import MicroappCore
import MicroappHost
import MicroappLoading
import MicroappPlatform

/// The command line turned into the loader's requests: the options read here, the loading itself in MicroappHost.
extension LoadedPluginSet {
    /// Finds, screens and loads the plugins the command line names, and resolves them against the container
    /// `host` opens for `services` (`.live` for `run`, `.inspection` for the commands that only describe).
    @MainActor
    static func load(
        _ arguments: Arguments, host: HostConfiguration, directories extra: [String]? = nil,
        services: HostConfiguration.ServicesUse = .inspection, restored: Set<String> = []
    ) async throws(Problem) -> LoadedPluginSet {
        var request = try PluginSetRequest(arguments, host: host, directories: extra, services: services)
        // A library the canary took back runs at its earlier version, even if the supervisor turned it off.
        request.skippedLibraries.subtract(restored)
        do {
            return try await PluginSetLoader.load(request) { await openServices(host, services, arguments) }
        } catch {
            throw error.problem
        }
    }

    /// The container `host` opens for `services`, or the problem it had.
    @MainActor
    private static func openServices(
        _ host: HostConfiguration, _ services: HostConfiguration.ServicesUse, _ arguments: Arguments
    ) async -> Result<Container, Problem> {
        do {
            return .success(try await host.services(services, arguments))
        } catch let error as any ProblemDescribing {
            return .failure(error.problem)
        } catch {
            return .failure(
                Problem(
                    code: .usage, subject: "", reason: "the app's services could not be opened: \(error)",
                    fix: "this is a bug in microapp: report it with this message"))
        }
    }
}

extension PluginSetRequest {
    /// What `arguments` ask the loader for: `--plugins` (or `doctor`'s folders, `extra`), `--no-build`,
    /// `--skip-library`, `--isolation`, `--allow`, `--strict`, `--grant`, `--allow-unsandboxed`, `--no-probe` and
    /// `--only`; a folder that is not there is a typo, said before anything is built or loaded.
    @MainActor
    init(
        _ arguments: Arguments, host: HostConfiguration, directories extra: [String]?,
        services: HostConfiguration.ServicesUse
    ) throws(Problem) {
        let locations = PluginLocations.current()
        let directories: [String]
        do {
            if let extra {
                try PluginLocations.checkFolders(extra, option: "doctor")
                directories = extra
            } else {
                directories = try locations.directories(adding: arguments[CommonOptions.plugins])
            }
        } catch {
            throw error.problem
        }
        self.init(locations: locations, directories: directories, environment: arguments.environment)
        let environment = arguments.environment
        buildFirst = !arguments[CommonOptions.noBuild]
        skippedLibraries = Set(arguments[CommonOptions.skipLibrary])
        isolation = RunPolicy.isolationChoice(arguments)
        rules = RunPolicy.rules(arguments, host: host)
        grants = RunPolicy.grantOptions(arguments)
        sandbox = SandboxCheck.here(arguments)
        screening =
            arguments[CommonOptions.noProbe]
            ? nil : PluginScreening(environment: arguments.environment, allowingUnsandboxed: sandbox.unsandboxed)
        // Libraries unchanged since an earlier start are neither read nor hashed; the inspection commands map none
        // that the probe cache describes.
        store = LibraryStore.inCacheFolder(of: arguments.environment)
        mapsDescribed = services != .inspection
        only = arguments[CommonOptions.only]
        expectsChildren = isolation == .process || (isolation == .auto && !arguments[CommonOptions.plugins].isEmpty)
        usesZygote = environment["MICROAPP_ZYGOTE"] != "0"
        // `run`'s first frame waits for the feature on screen only (`MICROAPP_START_LATE=0`: for every feature, as
        // before, to compare); `--strict` stops at any problem, so it waits for every load.
        startsLate =
            services == .live && !arguments[RunCommand.strict] && environment["MICROAPP_START_LATE"] != "0"
        if startsLate { firstScreen = arguments.openURL ?? arguments[RunCommand.home] ?? host.home }
        // The inspect commands say so on stderr; `run` tells its front end.
        if services == .inspection {
            notify = { notice in
                switch notice {
                case .leftover(let leftover): Console.err(leftover.note, label: "note")
                case .warnings(let warnings): Console.warn(warnings)
                }
            }
        }
    }
}

extension FeatureLibrary {
    /// `load`, with a refusal reported on stderr (or as JSON) as every command that runs one feature does: nil then.
    @MainActor
    static func loadReporting(
        _ name: String, arguments: Arguments, mocks: [String: String]? = nil, building: Bool = true
    ) async throws(Problem) -> FeatureLibrary? {
        let locations = PluginLocations.current()
        var request = FeatureRequest(name: name, locations: locations, environment: arguments.environment)
        // A --plugins folder that is not there is a typo: said before anything is built or loaded.
        _ = try locations.directories(arguments)
        request.pluginsFolders = arguments[CommonOptions.plugins]
        request.buildFirst = building && !arguments[CommonOptions.noBuild]
        request.isolation = RunPolicy.isolationChoice(arguments)
        request.sandbox = SandboxCheck.here(arguments)
        request.mocks = mocks
        request.allowingNetwork = RunPolicy.capabilities(arguments).allowed.contains(.network)
        let loaded: Result<FeatureLibrary, Problem>
        do {
            loaded = try await load(request)
        } catch {
            throw error.problem
        }
        switch loaded {
        case .success(let library): return library
        case .failure(let problem) where problem.code == .mockChoice:
            // A child's answer to the --mock choices: the usage error the in-process check gives.
            throw Problem.usage(problem.reason, fix: problem.fix)
        case .failure(let problem):
            Console.report([problem])
            return nil
        }
    }
}

extension PluginLocations {
    /// The plugin folders to load: beside the executable, then each `--plugins DIR` of `arguments`, each once; one
    /// that is not a folder is a usage error.
    func directories(_ arguments: Arguments) throws(Problem) -> [String] {
        do {
            return try directories(adding: arguments[CommonOptions.plugins])
        } catch {
            throw error.problem
        }
    }
}

extension SandboxCheck {
    /// The check for this kernel under `arguments`' `--allow-unsandboxed` (and the test-only variable).
    static func here(_ arguments: Arguments) -> SandboxCheck {
        here(
            allowingUnsandboxed: arguments[CommonOptions.allowUnsandboxed],
            environment: arguments.environment.variables)
    }
}
