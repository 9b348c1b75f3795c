import Dispatch
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// A plugin library run in its own sandboxed child (`--isolation process`): the host never maps it. Its manifest is
/// the one the child registered, decoded with `ManifestCoding`'s bounds like any other.
public struct IsolatedPlugin: LoadedPlugin {
    /// The library as the host found it.
    public let path: String
    /// What the child's registration of it says.
    public let manifest: FeatureManifest
    private let factory: IsolatedFactory
    /// Whether its child starts with its feature, not before (`described`): nothing of it ran yet.
    public var startsWithFeature = false

    /// Starts a child for `library` and waits (without blocking the main actor) for its handshake, at most
    /// `timeout`; a library the child cannot load or register is refused with the child's reason. With `mocks`
    /// (`solo`: the `--mock KEY=VARIANT` choices), the child meets every requirement from the feature's own mocks.
    /// With `prepared` (the private copy the start-up lock check read, hashed and checked), the child maps that copy
    /// and the library is not read again. With `allowingNetwork` (`--allow network`), a feature that declares
    /// `network` gets it: the sandbox is applied before the library is mapped, so the child that answered the
    /// handshake (without network) is replaced by one whose sandbox lets it connect, started from a new copy checked
    /// against the lock again and refused unless it registers the same manifest; its later children (a restart, a
    /// swap) get network too.
    @MainActor
    public static func launch(
        _ library: String, prepared: LibraryCopy? = nil, executable: String = IsolatedLaunch.executable,
        log: IsolationLog, timeout: Duration = .seconds(10), mocks: [String: String]? = nil,
        allowingNetwork: Bool = false
    ) async -> Result<IsolatedPlugin, Problem> {
        let extra = mocks.map { ["--mocks", MockChoices.encode($0)] } ?? []
        let first = await launch(
            library, prepared: prepared, executable: executable, log: log, timeout: timeout, extra: extra)
        guard allowingNetwork, case .success(let plugin) = first, plugin.manifest.capabilities.contains(.network)
        else { return first }
        plugin.stop()
        let granted = await launch(
            library, prepared: nil, executable: executable, log: log, timeout: timeout,
            extra: extra + IsolatedLaunch.network)
        guard case .success(let again) = granted, again.manifest != plugin.manifest else { return granted }
        again.stop()
        return .failure(
            Problem(
                .lockMismatch, subject: library,
                reason: "it changed while it was started again with network (it registered another manifest)",
                fix: "start the app again once the library is no longer being replaced"))
    }

    /// A library whose child starts with its feature, not before (`run`'s first frame waits for the feature on screen
    /// only): `manifest` is what a sandboxed child registered from these same bytes before (`ProbeCache.description`),
    /// the child maps `copy` and must register `manifest` again. A child that is refused, hangs past `timeout` or ends
    /// before its handshake is a load problem, told to the runtime (`FeatureEnvironment.failedToLoad`).
    @MainActor
    public static func described(
        _ copy: LibraryCopy, manifest: FeatureManifest, executable: String = IsolatedLaunch.executable,
        log: IsolationLog, timeout: Duration = .seconds(10), allowingNetwork: Bool = false
    ) -> IsolatedPlugin {
        // The record says whether the feature declares network: its one child gets it from the start.
        let extra = allowingNetwork && manifest.capabilities.contains(.network) ? IsolatedLaunch.network : []
        let factory = IsolatedFactory(
            described: copy, recorded: manifest, executable: executable, log: log, extra: extra, timeout: timeout)
        var plugin = IsolatedPlugin(path: copy.original, manifest: manifest, factory: factory)
        plugin.startsWithFeature = true
        return plugin
    }

    /// Starts one child with the feature-host options `extra` and waits for its handshake.
    @MainActor
    private static func launch(
        _ library: String, prepared: LibraryCopy?, executable: String, log: IsolationLog, timeout: Duration,
        extra: [String]
    ) async -> Result<IsolatedPlugin, Problem> {
        let remote: IsolatedRoot
        let limit: ChildTimeLimit
        let mocked = extra.contains("--mocks")
        do throws(IsolatedChild.StartFailure) {
            let (zygote, environment) = (log.zygote, log.childEnvironment)
            let child = try await BlockingWork.run { () throws(IsolatedChild.StartFailure) in
                // The folder's lock is checked on the digest of the copy the child maps: the bytes checked are those run.
                try IsolatedChild.spawn(
                    library: library, prepared: prepared, executable: executable, zygote: zygote,
                    environment: environment, extra: extra
                ) { PluginLock.swapProblem(for: library, sha256: $0.sha256) }
            }
            remote = IsolatedFactory.remote(library, child: child, log: log, mocked: mocked)
            limit = ChildTimeLimit(timeout, pid: child.process.pid)
        } catch {
            switch error {
            case .refused(let problem): return .failure(problem)
            case .system(let error):
                return .failure(
                    Problem(
                        .loadFailed, subject: library, reason: "its feature host could not start (\(error))",
                        fix: "check that \(executable) runs and the temporary folder is writable"))
            }
        }
        let welcome = await withCheckedContinuation { continuation in
            remote.welcomed = { continuation.resume(returning: $0) }
            Self.refuseUnwelcomed(remote, library: library, after: timeout, limit: limit)
        }
        switch welcome {
        case .success(let manifest):
            let factory = IsolatedFactory(
                library: library, executable: executable, log: log, first: remote, extra: extra)
            return .success(IsolatedPlugin(path: library, manifest: manifest, factory: factory))
        case .failure(let problem):
            remote.stop()
            return .failure(problem)
        }
    }

    /// After `delay`, refuses `remote` as `register-hung` unless it answered its handshake meanwhile or `limit` (the
    /// time its child could run) gives it longer, as it does for a child kept waiting for a CPU by a busy machine.
    @MainActor
    static func refuseUnwelcomed(
        _ remote: IsolatedRoot, library: String, after delay: Duration, limit: ChildTimeLimit
    ) {
        DispatchQueue.main.asyncAfter(deadline: .now() + delay.timeInterval) {
            MainActor.assumeIsolated {
                guard let welcomed = remote.welcomed else { return }
                let left = limit.remaining()
                guard left <= .zero else {
                    return refuseUnwelcomed(remote, library: library, after: left, limit: limit)
                }
                remote.welcomed = nil
                welcomed(
                    .failure(
                        Problem(
                            .registerHung, subject: library,
                            reason:
                                "its feature host did not load and register it within \(limit.limit.components.seconds) s of running time (the library's constructors or its manifest code hang)",
                            fix: "run `microapp probe \(library)` to see where it hangs"
                        )
                    ))
            }
        }
    }

    /// Ends the child that answered the handshake, for a plugin that will not run (`--only`, a duplicate).
    @MainActor
    public func stop() { factory.stopUnstarted() }

    /// Ends the child that answered the handshake, waiting for its end, and removes its private folder: for a plugin
    /// that will not run (`--only`, a duplicate) when the command may end before the child's end is noticed.
    @MainActor
    public func end() { factory.endUnstarted() }

    /// Ends every child of `plugins` that answered the handshake and no feature was started in, waiting for each to
    /// end, removes their private folders and this process's pinned copies, and ends the template process: what an
    /// inspection command (`routes`, `doctor`, `keys`, `graph`) started, removed before it returns, on every way out.
    @MainActor
    public static func endAll(_ plugins: [IsolatedPlugin], log: IsolationLog?) {
        for plugin in plugins { plugin.end() }
        IsolatedChild.removePinned()
        log?.zygote?.stop()
    }

    /// Forks now (on the main actor, about a millisecond) the child its feature will start in, for a feature expected on
    /// the first screen (`startsWithFeature` only): its start takes that child. Ended with the plugin when it does not
    /// run.
    @MainActor
    package func prepareEarly() { factory.prepareEarly() }

    /// Whether a child is forked and waits for its feature's start (the launch's, or one `prepareEarly()` forked).
    @MainActor
    package var hasWaitingChild: Bool { factory.hasWaitingChild }

    /// The factory that starts the feature in the child (a new child for each later start: Restart, a swap).
    @MainActor
    public func register() -> Result<any FeatureFactory, Problem> { .success(factory) }
}

/// What the isolated features of one run share: where their printed lines go (set once the runtime exists; lines
/// before that are kept), the zygote that forks their children, if one could be started, the environment their
/// children get, and the registry of those running.
@MainActor
public final class IsolationLog {
    private var sink: ((String, String) -> Void)?
    private var early: [(String, String)] = []
    /// The template process children are forked from; nil when each child is a process start of its own.
    public let zygote: Zygote?
    /// The host's environment: the children's own is made from it, and their requests' deadline read from it.
    public let environment: HostEnvironment
    /// The environment variables a child started afresh gets (`ChildLaunch.featureEnvironment`).
    public let childEnvironment: [String: String]
    /// The run's features whose children are running.
    public let running = RunningFeatures()

    /// A log with no sink yet, forking children from `zygote` when given, in the host's `environment`; with
    /// `allowingUnsandboxed` (`--allow-unsandboxed`) the children skip the sandbox mechanisms the kernel lacks.
    public init(zygote: Zygote? = nil, environment: HostEnvironment, allowingUnsandboxed: Bool = false) {
        self.zygote = zygote
        self.environment = environment
        childEnvironment = ChildLaunch.featureEnvironment(environment, allowingUnsandboxed: allowingUnsandboxed)
    }

    /// Ends every isolated feature's child of the run and removes its private folder (the app is quitting).
    public func stopAll() { running.stopAll() }

    /// Sends every line (feature id, line) to `sink` from now on, the early ones first.
    public func connect(_ sink: @escaping (String, String) -> Void) {
        self.sink = sink
        early.forEach(sink)
        early = []
    }

    func write(feature: String, _ line: String) {
        if let sink { sink(feature, line) } else if early.count < 200 { early.append((feature, line)) }
    }
}

/// How the host starts `microapp feature-host`: this executable, with its internal marker.
public enum IsolatedLaunch {
    /// This process's executable.
    public static var executable: String { FileFacts.executablePath }
    /// The feature-host option that lets the child's sandbox open network connections.
    public static let network = ["--network", "granted"]
}

/// Starts an isolated feature: the child that answered the handshake first, a new child on every later start.
@MainActor
final class IsolatedFactory: PreparingFactory {
    let origin: String
    private var library: String
    private let executable: String
    private let log: IsolationLog
    private var first: IsolatedRoot?
    /// The feature-host options every child of this feature gets (`--mocks` in solo).
    private let extra: [String]
    /// The manifest the first child registered: the host's record, which every later child must register again.
    private let recorded: FeatureManifest?
    /// Made from a record (`described`): the checked copy its first child maps, until that child is started.
    private var prepared: LibraryCopy?
    /// How long that first child may take to its handshake.
    private var handshakeLimit = Duration.seconds(10)
    /// That first child, while its handshake is awaited.
    private weak var awaited: IsolatedRoot?
    /// Why that first child failed before a feature was started in it (the start throws it).
    private var handshakeFailure: Problem?
    /// Told when that first child fails after a feature was started in it.
    private var failedToLoad: ((Problem) -> Void)?

    init(library: String, executable: String, log: IsolationLog, first: IsolatedRoot, extra: [String] = []) {
        self.extra = extra
        // Later children (a restart, a rollback) start from the bytes this one maps, not from a file a build replaces.
        self.library = first.pinLibrary() ?? library
        self.executable = executable
        self.log = log
        self.first = first
        recorded = first.manifest
        origin = library
    }

    /// A factory with no child yet: its first child maps `copy` (checked against its folder's lock as a launch's is)
    /// and must register `recorded`; its handshake is awaited for at most `timeout`.
    init(
        described copy: LibraryCopy, recorded: FeatureManifest, executable: String, log: IsolationLog,
        extra: [String], timeout: Duration
    ) {
        self.extra = extra
        library = copy.original
        self.executable = executable
        self.log = log
        self.recorded = recorded
        prepared = copy
        handshakeLimit = timeout
        origin = copy.original
    }

    /// The root of `child`; a later child's (`recorded`: the first child's manifest) must register that manifest
    /// again, and its log lines are named by it.
    static func remote(
        _ library: String, child: IsolatedChild, log: IsolationLog, mocked: Bool = false,
        recorded: FeatureManifest? = nil
    ) -> IsolatedRoot {
        let remote = IsolatedRoot(
            library: library, child: child, registry: log.running,
            deadline: RequestWatchdog.deadline(from: log.environment.variables), now: log.environment.now)
        remote.mocked = mocked
        remote.recorded = recorded
        remote.log = { [weak remote] line in
            log.write(feature: remote?.named?.id ?? (library as NSString).lastPathComponent, line)
        }
        return remote
    }

    /// Ends the first child if no feature was started in it.
    func stopUnstarted() {
        first?.stop()
        first = nil
    }

    /// Ends the first child if no feature was started in it, waiting for its end, and removes its folder.
    func endUnstarted() {
        first?.end()
        first = nil
    }

    /// Forks the first child of a factory made from a record now, on the main actor (a fork of the zygote blocks for
    /// about a millisecond): the start that comes takes it. A fork that fails is left to that start, which forks again
    /// and reports why.
    func prepareEarly() {
        guard first == nil, prepared != nil else { return }
        first = try? forkNow()
    }

    /// Starts the child of the next start (a late start, a restart, a rollback) off the main actor: a fork of the
    /// zygote blocks for about a millisecond, a copy of the library a little more.
    func prepareStart() async throws {
        guard first == nil, handshakeFailure == nil else { return }
        let (library, executable, zygote, extra) = (self.library, self.executable, log.zygote, self.extra)
        let (origin, environment, prepared) = (self.origin, log.childEnvironment, self.prepared)
        let child = try await BlockingWork.run {
            try Self.newChild(
                library: library, prepared: prepared, origin: origin, executable: executable, zygote: zygote,
                environment: environment, extra: extra)
        }
        let remote = root(of: child)
        // Another start may have prepared one meanwhile: one child is kept, the other ended (and reaped).
        // A start that forked its own child meanwhile took the first one's copy: this one is not needed either.
        guard first == nil, prepared == nil || self.prepared != nil else { return remote.stop() }
        first = remote
        awaitHandshake(remote, child: child)
    }

    /// The first child of a factory made from a record: its bytes are pinned for later children, and its handshake is
    /// awaited as a launch awaits it (a refusal, a hang or an end before it is a load problem). Nothing for others.
    private func awaitHandshake(_ remote: IsolatedRoot, child: IsolatedChild) {
        guard prepared != nil else { return }
        prepared = nil
        library = remote.pinLibrary() ?? library
        awaited = remote
        remote.welcomed = { [weak self] result in
            guard case .failure(let problem) = result, let self else { return }
            if let failedToLoad = self.failedToLoad { return failedToLoad(problem) }
            self.handshakeFailure = problem
            self.stopUnstarted()
        }
        IsolatedPlugin.refuseUnwelcomed(
            remote, library: origin, after: handshakeLimit,
            limit: ChildTimeLimit(handshakeLimit, pid: child.process.pid))
    }

    func discardPreparedStart() { stopUnstarted() }

    /// Whether a child is forked and no feature was started in it yet.
    var hasWaitingChild: Bool { first != nil }

    /// A child for the next start, forked here (blocking for the fork), its handshake awaited when it is the first.
    private func forkNow() throws -> IsolatedRoot {
        let child = try Self.newChild(
            library: library, prepared: prepared, origin: origin, executable: executable, zygote: log.zygote,
            environment: log.childEnvironment, extra: extra)
        let remote = root(of: child)
        awaitHandshake(remote, child: child)
        return remote
    }

    /// The root of a later child of this feature: it must register the recorded manifest, with this feature's options.
    private func root(of child: IsolatedChild) -> IsolatedRoot {
        Self.remote(origin, child: child, log: log, mocked: extra.contains("--mocks"), recorded: recorded)
    }

    /// A new child for a later start (a restart, a rollback), its copy checked against the lock of `origin`'s folder
    /// as the first was; its failure as an error of its own kind. Blocks.
    nonisolated private static func newChild(
        library: String, prepared: LibraryCopy? = nil, origin: String, executable: String, zygote: Zygote?,
        environment: [String: String], extra: [String]
    ) throws -> IsolatedChild {
        do throws(IsolatedChild.StartFailure) {
            return try IsolatedChild.spawn(
                library: library, prepared: prepared, executable: executable, zygote: zygote, environment: environment,
                extra: extra
            ) {
                PluginLock.swapProblem(for: origin, sha256: $0.sha256)
            }
        } catch {
            throw error.error
        }
    }

    func start(in environment: FeatureEnvironment) throws -> StartedFeature {
        if let handshakeFailure {
            self.handshakeFailure = nil
            throw handshakeFailure
        }
        let remote: IsolatedRoot
        if let first {
            remote = first
            self.first = nil
        } else {
            // Only when nobody prepared the start: the fork blocks the main actor for a moment.
            remote = try forkNow()
        }
        if remote === awaited { failedToLoad = environment.failedToLoad }
        remote.begin(in: environment)
        return StartedFeature(root: remote, services: remote.providedServices(environment.manifest))
    }
}

/// The `--mock KEY=VARIANT` choices of a solo run as they reach its feature-host child (`--mocks JSON`).
public enum MockChoices {
    /// The choices as one JSON object.
    public static func encode(_ choices: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(choices)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The choices `text` holds, nil when it is not a JSON object of strings.
    public static func decode(_ text: String) -> [String: String]? {
        try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}
