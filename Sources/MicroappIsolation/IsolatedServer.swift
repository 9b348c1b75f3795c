import Dispatch
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// The child side of an isolated feature (`microapp feature-host`, internal): it sandboxes itself, then loads and
/// registers one library with the ordinary loader and serves its feature to the host over the protocol socket.
/// Nothing the host holds is reachable from here: services are calls over the socket, state is a local copy of
/// values the host sends, and only the state's owner's writes go back up (the host checks the grant again).
///
/// `run` takes the connected socket, so a zygote's forked child can call it as well as a process started afresh.
@MainActor
public final class IsolatedServer {
    private let channel: FeatureChannel
    private let calls = ServiceCalls()
    private var feature: (any Feature.Type)?
    private var root: (any Root)?
    private var provided: [String: ErasedService] = [:]
    private var states: [String: ObservableProperty<JSONValue>] = [:]
    private var observations: [Observation] = []
    /// A value from the host being applied: its echo is not a write.
    private var applyingHostValue = false
    /// Locations the host asked about, newest last: redrawn after `invalidate()`.
    private var shown: [Location] = []
    private var sentScreens: [Location: Screen] = [:]
    private var sentSnapshot: Data??
    private var redrawScheduled = false
    /// Requests answered whose `done` waits for the work they started.
    private var owedDone = 0
    /// Counts what happened (answers, calls, redraws), so the idle check sees whether anything did meanwhile.
    private var activity = 0
    private var finished: CheckedContinuation<Int32, Never>?
    /// `solo`: the container of the feature's own mocks (in the variants chosen), which meets all its requirements.
    private var mocked: Container?

    private init(channel: FeatureChannel) { self.channel = channel }

    /// Serves the library at `library` on the connected socket `descriptor` after `sandbox` ran (it answers why it
    /// could not, or nil); answers the exit status once the host closed the socket. With `mocks` (`solo`'s
    /// `--mock` choices) every requirement is met by the feature's own mocks here, and a feature whose mocks cannot
    /// meet them is refused before the handshake ends, as `solo` refuses it in-process.
    public static func run(
        descriptor: Int32, library: String, mocks: [String: String]? = nil, sandbox: () -> String?
    ) async -> Int32 {
        // What the plugin prints reaches the host's log line by line (its stdout is a pipe, not a terminal).
        ChildLaunch.lineBufferOutput()
        // The sandbox first, while this is the process's only thread: Landlock confines the calling thread and the
        // threads it starts later, so the channel's reader thread must not exist yet.
        let sandboxProblem = sandbox()
        // The cooperative pool's first thread starts now, beside the library's load on this one: every answer's
        // `done` waits for a pass through the pool (`settleSoon`), and the first paid for starting that thread.
        if sandboxProblem == nil { Task.detached {} }
        let child = IsolatedServer(channel: FeatureChannel(descriptor: descriptor))
        return await withCheckedContinuation { continuation in
            child.finished = continuation
            child.channel.start(receive: child.receive, ended: { _ in child.finish(0) })
            if let problem = sandboxProblem {
                child.refuse("the sandbox could not be applied: \(problem)")
                return
            }
            switch PluginLoader.load(library).flatMap(PluginLoader.register) {
            case .success(let feature):
                child.feature = feature
                if let mocks {
                    switch child.mockContainer(of: feature, choices: mocks) {
                    case .success(let container): child.mocked = container
                    case .failure(let problem):
                        return child.refuse(problem.reason, fix: problem.fix, code: problem.code)
                    }
                }
                let manifest = (try? ManifestCoding.encode(feature.manifest)) ?? ""
                child.channel.send(.welcome(version: FeatureWire.version, manifest: manifest))
            case .failure(let problem):
                child.refuse("\(problem.reason); to fix: \(problem.fix)")
            }
        }
    }

    private func refuse(_ reason: String, fix: String? = nil, code: Problem.Code? = nil) {
        let bound = FeatureWire.maximumLine / 4
        channel.send(
            .refused(String(reason.prefix(bound)), fix: fix.map { String($0.prefix(bound)) }, code: code?.rawValue))
        // After the refusal is written: closing at once could shut the socket with it still queued.
        channel.closeAfterWrites()
    }

    private func finish(_ status: Int32) {
        calls.failAll(ServiceError(code: "unavailable", message: "the host closed the feature's connection"))
        finished?.resume(returning: status)
        finished = nil
    }

    private func send(_ message: FeatureMessage) { channel.send(message) }

    private func receive(_ message: FeatureMessage) {
        switch message {
        case .hello(let version) where version != FeatureWire.version:
            refuse("the host speaks feature protocol \(version), this child \(FeatureWire.version)")
        case .hello: break
        case .start(let state, let writable, let services):
            start(state: state, writable: Set(writable), services: services)
        case .willShow(let location):
            root?.willShow(location)
            answer(location)
        case .screen(let location): answer(location)
        case .action(let action, let location):
            root?.handle(action.action, at: location)
            answer(location)
        case .stateChanged(let key, let value):
            guard let property = states[key], let new = JSONValue(bytes: value) else { return }
            applyingHostValue = true
            property.value = new
            applyingHostValue = false
        case .restore(let bytes):
            do {
                try root?.restore(from: bytes)
                send(.restored(failure: nil))
            } catch {
                send(.restored(failure: String("\(error)".prefix(1000))))
            }
            redraw()
        case .serviceCall(let id, let key, let request):
            ServiceCalls.answer(id: id, key: key, request: request, with: provided[key]) { [weak self] in
                self?.send($0)
            }
        case .serviceReply(let id, let response, let error):
            _ = calls.deliver(id: id, response: response, error: error)
        default:
            break  // the host sends only host messages; anything else is ignored here
        }
    }

    /// The container of `feature`'s mocks in the variants `choices` names, or why it cannot run alone on them: the
    /// choices first (a usage error, as in-process), then every requirement without a mock, each named.
    private func mockContainer(
        of feature: any Feature.Type, choices: [String: String]
    ) -> Result<Container, Problem> {
        let mocks = feature.mocks()
        let manifest = feature.manifest
        let container: Container
        do throws(MockChoiceError) {
            container = try Container.mocked(mocks, choices: choices)
        } catch {
            return .failure(
                Problem(
                    .mockChoice, subject: manifest.id, reason: "\(manifest.displayName): --mock \(error.reason)",
                    fix: error.fix))
        }
        let missing = mocks.missing(in: manifest).map {
            Problem.unmocked($0, feature: manifest.id, typeName: String(describing: feature))
        }
        guard missing.isEmpty else {
            return .failure(
                Problem(
                    .missingRequirement, subject: manifest.id,
                    reason: missing.map(\.reason).joined(separator: "; ")
                        + "; \(manifest.displayName) cannot run alone until every requirement has a mock",
                    fix: missing.map(\.fix).joined(separator: "; ")))
        }
        return .success(container)
    }

    /// `solo`: the feature reads everything from its mocks; of each piece of state the host keeps a copy of (those
    /// `start` sent: the session, for guards and the header), the mocks' value goes up now and after each change.
    private func mockedSource(
        _ container: Container, manifest: FeatureManifest, mirrored: Set<String>
    ) -> FeatureDependencies {
        let source = FeatureDependencies(container: container, manifest: manifest)
        for requirement in manifest.requirements where requirement.kind == .state && mirrored.contains(requirement.key)
        {
            var owner = requirement
            owner.access = .readWrite
            guard let bytes = StateBytes(owner, in: source) else { continue }
            send(.stateWrite(key: requirement.key, value: bytes.current))
            observations.append(
                bytes.observe { [weak self] in self?.send(.stateWrite(key: requirement.key, value: $0)) })
        }
        return source
    }

    private func start(state: [String: Data], writable: Set<String>, services: [String]) {
        guard let feature, root == nil else { return }
        let manifest = feature.manifest
        if let mocked {
            let source = mockedSource(mocked, manifest: manifest, mirrored: Set(state.keys))
            return makeRoot(feature, source: source) { source.provided = $0 }
        }
        let source = ChildDependencies()
        for key in services {
            source.services[key] = ErasedService { [weak self] request in
                guard let self else { throw ServiceError(code: "unavailable", message: "the feature host ended") }
                return try await self.call(key, request)
            }
        }
        for requirement in manifest.requirements where requirement.kind == .state {
            guard let bytes = state[requirement.key], let value = JSONValue(bytes: bytes) else { continue }
            let property = ObservableProperty(value)
            states[requirement.key] = property
            let access: Access = writable.contains(requirement.key) ? .readWrite : .read
            source.grants[requirement.key] = StateGrant(property, access: access)
            guard access == .readWrite else { continue }
            observations.append(
                property.observe { [weak self] new in
                    guard let self, !self.applyingHostValue else { return }
                    self.send(.stateWrite(key: requirement.key, value: new.bytes))
                })
        }
        makeRoot(feature, source: source) { source.own = $0 }
    }

    /// Provides the feature's services and makes its Root on `source`, which hears of the services (`offer`) so the
    /// feature can use what it provides; answers `started` or `startFailed`.
    private func makeRoot(
        _ feature: any Feature.Type, source: any DependencySource, offer: ([String: ErasedService]) -> Void
    ) {
        let manifest = feature.manifest
        let context = FeatureContext(
            manifest: manifest, source: source, navigation: ChildNavigation(send: { [weak self] in self?.send($0) }),
            invalidate: { [weak self] in self?.scheduleRedraw() })
        do {
            let provisions = try feature.provide(context)
            // The host hands out a proxy for each service the manifest promises: one the feature did not add is
            // refused here, as the runtime refuses it in-process, before anyone calls it.
            if let missing = manifest.provides.first(where: { provisions.services[$0.key] == nil }) {
                throw DependencyError.notProvided(missing.key)
            }
            provided = provisions.services
            offer(provisions.services)
            root = try feature.makeRoot(context)
            send(.started)
            sendSnapshotIfChanged()
        } catch {
            send(.startFailed(String("\(error)".prefix(FeatureWire.maximumLine / 4))))
        }
    }

    private func call(_ key: String, _ request: Data) async throws -> Data {
        // The caller goes on after the answer in this same turn; whether that settles the feature is seen after it.
        settleSoon()
        defer { settleSoon() }
        return try await calls.call(key, request) { channel.send($0) }
    }

    /// Sends the screen at `location` (the answer to a request) if the host does not have it; the snapshot, if it
    /// changed, and `done` follow once the work the request started has finished.
    private func answer(_ location: Location) {
        shown.removeAll { $0 == location }
        shown.append(location)
        if shown.count > 8 { shown.removeFirst() }
        redraw(always: location)
        owedDone += 1
        settleSoon()
    }

    /// Looks, once the work a request started had its turn to begin, whether the feature is idle (no call of the
    /// host's services in flight, no redraw pending, nothing new since); then the host hears the snapshot, if it
    /// changed, and `done` for each request answered, and may settle. The turn is counted, not timed: the main
    /// queue's jobs queued meanwhile (a Task the request started on the main actor), then one pass through the
    /// cooperative pool (where a feature's Task may hop before it calls a service), then the main queue again.
    /// Anything that happened meanwhile starts a new look. The snapshot waits for the idle moment so that it never
    /// stands between a screen and the host's frame.
    private func settleSoon() {
        activity &+= 1
        let seen = activity
        DispatchQueue.main.async {
            Task.detached {
                await MainActor.run {
                    guard self.activity == seen, !self.calls.inFlight, !self.redrawScheduled else { return }
                    self.sendSnapshotIfChanged()
                    for _ in 0..<self.owedDone { self.send(.done) }
                    self.owedDone = 0
                }
            }
        }
    }

    private func scheduleRedraw() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.redrawScheduled = false
                self.redraw()
            }
        }
    }

    /// Sends the screens of the shown locations that changed since they were last sent (`always`: that one also when
    /// it was never sent, so every screen request is answered); the snapshot follows at the next idle moment.
    private func redraw(always: Location? = nil) {
        guard let root else { return }
        for location in shown {
            let screen = root.screen(at: location)
            guard sentScreens[location] != screen || (location == always && sentScreens[location] == nil) else {
                continue
            }
            sentScreens[location] = screen
            send(.screenUpdate(location, screen))
        }
        settleSoon()
    }

    private func sendSnapshotIfChanged() {
        guard let root else { return }
        let snapshot = root.snapshot()
        guard sentSnapshot != .some(snapshot) else { return }
        sentSnapshot = .some(snapshot)
        send(.snapshot(snapshot))
    }
}

/// What the feature's context reads its requirements from in the child: calls to the host's services, the
/// feature's own provisions (for a service only it provides), and grants over local copies of the host's state.
@MainActor
private final class ChildDependencies: DependencySource {
    var services: [String: ErasedService] = [:]
    var own: [String: ErasedService] = [:]
    var grants: [String: StateGrant] = [:]

    func value(for requirement: Requirement) -> Any? {
        switch requirement.kind {
        case .service: services[requirement.key] ?? own[requirement.key]
        case .state: grants[requirement.key]
        }
    }
}

/// The feature's back stack calls, sent to the host.
@MainActor
private final class ChildNavigation: NavigationHost {
    private let send: (FeatureMessage) -> Void

    init(send: @escaping (FeatureMessage) -> Void) { self.send = send }

    func push(_ url: String) { send(.navigate(.push(url))) }
    func pop() { send(.navigate(.pop)) }
    func popToRoot() { send(.navigate(.popToRoot)) }
    func open(_ url: String) { send(.navigate(.open(url))) }
}
