import Dispatch
import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

/// The host's side of one isolated feature's child: its Root as the runtime sees it (screens are the last the child
/// sent; actions go down the socket), the services it provides, and the checks every message passes before use.
/// A child that breaks the protocol is killed and reported as `feature-protocol`; one that ends is reported with its
/// status and last stderr lines. Nothing here runs plugin code.
@MainActor
public final class IsolatedRoot: SettlingRoot {
    /// The library as the host found it (messages name it, not the private copy).
    let library: String
    private let child: IsolatedChild
    private(set) var manifest: FeatureManifest?
    /// The protocol's rules and counts: what the child may send now.
    private var gate: ChildMessageGate
    private var phase: ChildMessageGate.Phase {
        get { gate.phase }
        set { gate.phase = newValue }
    }
    private var environment: FeatureEnvironment?
    private var outbound: [FeatureMessage] = []
    private var screens: [Location: Screen] = [:]
    private var lastSnapshot: Data?
    private var grants: [String: StateBytes] = [:]
    private var observations: [Observation] = []
    private let calls = ServiceCalls()
    /// Why the feature refused to start in its child (`provide` or `makeRoot` threw), once it said so.
    private var startFailure: String?
    /// Watches each screen and action request until its `done`; one unanswered past the deadline kills the child,
    /// unless it waits for the host's answer to its own service call, or a busy machine keeps it from a CPU.
    private lazy var watchdog = RequestWatchdog(
        deadline: deadline, clock: ContinuousClock(), excuse: { [weak self] in await self?.excuse() }
    ) { [weak self] _ in self?.child.kill() }
    private let deadline: Duration
    /// The run's registry of running children, which this one is in until it ends.
    private let registry: RunningFeatures
    /// The watchdog's tickets of the requests in flight, oldest first (the child answers them in order).
    private var tickets: [Int] = []
    /// The kernel's count of out-of-memory kills when the child started, to tell an OOM kill from another SIGKILL.
    private let outOfMemoryKillsAtStart = OutOfMemoryCount.read()
    /// The manifest the host recorded for the feature (its first child's), which this later child (a restart, a
    /// rollback) must register again or be cut off; nil for a feature's first child.
    var recorded: FeatureManifest?
    /// The manifest the host names the feature by: its record, else what this (first) child registered.
    var named: FeatureManifest? { recorded ?? manifest }
    /// Called once with the manifest (or why there is none) when the handshake ends.
    var welcomed: ((Result<FeatureManifest, Problem>) -> Void)?
    /// Where the feature's printed lines go (a `log` notice each).
    var log: (String) -> Void = { _ in }
    /// `solo`: the child meets every requirement from the feature's own mocks, which own its state: the host's copy
    /// of each piece (the session, for guards and the header) follows the mocks' writes.
    var mocked = false
    /// Whether the child answered `start` (a swap waits for it).
    private var startAnswered = false
    /// A `restore` sent whose answer has not come.
    private var restoring = false
    /// Called once when a new version's child answered its start, restore and first screen, or why it did not.
    private var readiness: ((Problem?) -> Void)?
    private var readyLocation: Location?
    /// Who waits (`settled()`) until no request is in flight.
    private var settling: [CheckedContinuation<Void, Never>] = []

    init(
        library: String, child: IsolatedChild, registry: RunningFeatures, deadline: Duration,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.library = library
        self.child = child
        self.registry = registry
        self.deadline = deadline
        gate = ChildMessageGate(now: now)
        child.watch(
            receive: { [weak self] in self?.receive($0) }, ended: { [weak self] in self?.channelEnded($0) },
            line: { [weak self] line, isError in self?.printed(line, isError: isError) },
            exited: { [weak self] termination, tail in self?.exited(termination, stderrTail: tail) })
        child.channel.send(.hello(version: FeatureWire.version))
        registry.add(self)
    }

    /// Why the child's unanswered request is not yet a hang: the host is answering a service call of the child's,
    /// or the child is starved (`childIsStarved`); nil when neither.
    private func excuse() async -> RequestWatchdog.Excuse? {
        if gate.answering > 0 { return .waitingForHost }
        return await childIsStarved() ? .starved : nil
    }

    /// Whether the child spends at least half of the next 200 ms waiting on the run queue for a CPU: it is runnable
    /// and other work holds the machine, so an unanswered request is not yet a hang.
    private func childIsStarved() async -> Bool {
        let pid = child.process.pid
        guard let before = RunQueueWait.total(of: pid) else { return false }
        try? await Task.sleep(for: .milliseconds(200))
        guard let after = RunQueueWait.total(of: pid) else { return false }
        return after - before >= .milliseconds(100)
    }

    // MARK: Starting

    /// Starts the feature in `environment` once the child has registered its library: state values it is granted
    /// and the services the host answers go down with `start`.
    func begin(in environment: FeatureEnvironment) {
        self.environment = environment
        var values: [String: Data] = [:]
        var writable: [String] = []
        var services: [String] = []
        for requirement in environment.manifest.requirements {
            switch requirement.kind {
            case .service:
                if environment.dependencies.value(for: requirement) is ErasedService {
                    services.append(requirement.key)
                }
            case .state:
                var asked = requirement
                if mocked { asked.access = .readWrite }
                guard let grant = StateBytes(asked, in: environment.dependencies) else { continue }
                grants[requirement.key] = grant
                values[requirement.key] = grant.current
                if grant.writable { writable.append(requirement.key) }
                observations.append(
                    grant.observe { [weak self] bytes in
                        self?.deliver(.stateChanged(key: requirement.key, value: bytes))
                    })
            }
        }
        gate.started(
            declared: Set(environment.manifest.requirements.filter { $0.kind == .service }.map(\.key)),
            served: Set(services), state: grants.mapValues(\.writable))
        outbound.insert(.start(state: values, writable: writable, services: services), at: 0)
        flush()
    }

    /// The services of the manifest's `provides`, each a call down to the child.
    func providedServices(_ manifest: FeatureManifest) -> [String: ErasedService] {
        Dictionary(
            manifest.provides.map { provision in
                let key = provision.key
                return (
                    key,
                    ErasedService { [weak self] request in
                        guard let self else { throw ServiceError(code: "unavailable", message: "\(key) stopped") }
                        return try await self.call(key, request)
                    }
                )
            }, uniquingKeysWith: { first, _ in first })
    }

    private func call(_ key: String, _ request: Data) async throws -> Data {
        try await calls.call(key, request) { deliverNow($0) }
    }

    /// Sends `message` now if the feature has started, else once it has.
    private func deliver(_ message: FeatureMessage) {
        outbound.append(message)
        flush()
    }

    private func deliverNow(_ message: FeatureMessage) -> Bool {
        guard phase == .started || phase == .welcomed, environment != nil else { return false }
        flush()
        return child.channel.send(message)
    }

    private func flush() {
        guard phase == .welcomed || phase == .started, environment != nil else { return }
        if phase == .welcomed { phase = .started }
        let messages = outbound
        outbound = []
        for message in messages { child.channel.send(message) }
    }

    /// Ends the child (a refused handshake, the app quitting).
    func stop() { child.kill() }

    /// Ends the child now, waiting for its end, and removes its private folder (the command is ending).
    func end() {
        phase = .ended
        child.end()
    }

    /// Keeps the bytes this child maps at a path of their own, for later children of the same version.
    func pinLibrary() -> String? { child.pin() }

    /// Ends the child of a version swapped out (or of a swap given up): quietly, not as a stopped feature.
    public func retire() {
        guard phase != .ended else { return }
        phase = .ended
        watchdog.cancelAll()
        calls.failAll(ServiceError(code: "unavailable", message: "\(faultName) was replaced"))
        observations = []
        becameReady(problem: "it was ended before it answered", fix: "save again to swap in the newest build")
        resumeSettling()
        child.kill()
    }

    /// Waits until the child answered its start, the state sent with `restore(from:)` and the screen at `location`
    /// (when given): nil then, or why not (a child that fails, ends or takes longer than the watchdog's deadline).
    public func ready(showing location: Location?) async -> Problem? {
        guard phase != .ended else {
            return Problem(
                .startFailed, subject: library, reason: "its feature host ended before it started",
                fix: "run `microapp probe \(library)` to see why")
        }
        return await withCheckedContinuation { continuation in
            readiness = { continuation.resume(returning: $0) }
            readyLocation = location
            if let location { _ = screen(at: location) }
            let seconds = watchdog.deadline.components.seconds
            DispatchQueue.main.asyncAfter(deadline: .now() + watchdog.deadline.timeInterval) {
                MainActor.assumeIsolated { [weak self] in
                    guard let self, self.readiness != nil else { return }
                    self.becameReady(
                        problem: "its new child did not answer its start and state within \(seconds) s",
                        fix: "look at what its makeRoot and restore(from:) wait for")
                    self.child.kill()
                }
            }
            checkReady()
        }
    }

    /// Waits until every request in flight was answered (their snapshot came before their `done`) or the child ended.
    public func settled() async {
        guard phase != .ended, gate.pending > 0 else { return }
        await withCheckedContinuation { settling.append($0) }
    }

    /// Lets those waiting in `settled()` go on once nothing is in flight (or nothing more will come).
    private func resumeSettling() {
        guard phase == .ended || gate.pending == 0 else { return }
        let waiting = settling
        settling = []
        waiting.forEach { $0.resume() }
    }

    /// Answers `ready` once every answer it waits for came.
    private func checkReady() {
        guard readiness != nil, startAnswered, !restoring else { return }
        if let location = readyLocation, screens[location] == nil || gate.pending > 0 { return }
        becameReady(problem: nil, fix: "")
    }

    private func becameReady(problem: String?, fix: String) {
        guard let readiness else { return }
        self.readiness = nil
        readiness(problem.map { Problem(.startFailed, subject: library, reason: $0, fix: fix) })
    }

    /// Waits until this feature's start was answered or it ended (with the run's other isolated features' starts).
    public func started() async {
        if !startIsAnswered { await registry.starts() }
    }

    /// Whether this feature's start was answered (started or refused), or it ended or was never asked to start.
    var startIsAnswered: Bool { environment == nil || startAnswered || startFailure != nil || phase == .ended }

    /// Ends the child and removes its private folder (the app is quitting).
    func stopForQuit() {
        phase = .ended
        resumeSettling()
        watchdog.cancelAll()
        child.kill()
        try? Files.remove(child.folder)
    }

    /// The feature as fault messages name it: its id and library path, which the host vouches for (a display name is
    /// the plugin's own words and may pass for another feature's).
    private var faultName: String { "\(named?.id ?? "the feature") (\(library))" }

    // MARK: Root

    /// The last screen the child sent for `location`; a loading screen until the first arrives (it is asked for).
    public func screen(at location: Location) -> Screen {
        if let screen = screens[location] { return screen }
        if phase == .ended {
            // Not a loading screen: nothing will come, and a script must not wait for it.
            return Screen(
                title: faultName, content: [],
                state: .error(ErrorPanel(title: "\(faultName) stopped", message: "Its process ended.", actions: [])))
        }
        if !gate.asked.contains(location) {
            request(.screen(location), about: location)
        }
        return Self.waiting(named?.displayName ?? library, "Starting…")
    }

    /// Tells the child; its answer (the screen there) comes later.
    public func willShow(_ location: Location) { request(.willShow(location), about: location) }

    /// Sends the action; the child answers with the new screen.
    public func handle(_ action: Action, at location: Location) {
        guard let action = WireAction(action) else { return }
        request(.action(action, at: location), about: location)
    }

    /// The child's last snapshot (it sends one whenever it changed).
    public func snapshot() -> Data? { lastSnapshot }

    /// Sends the snapshot down; the child takes it back before its next answer.
    public func restore(from snapshot: Data) throws {
        restoring = true
        deliver(.restore(snapshot))
    }

    /// Why the app waits for this feature: a request in flight.
    public var unsettledReason: String? {
        guard phase != .ended, gate.pending > 0 else { return nil }
        return "\(named?.displayName ?? library) is answering (\(gate.pending) request(s) in flight)"
    }

    private func request(_ message: FeatureMessage, about location: Location) {
        guard phase != .ended else { return }
        gate.requested(location)
        tickets.append(watchdog.begin(Self.describe(message, at: location)))
        deliver(message)
    }

    /// The request in words, for a `feature-hung` reason: "it did not answer the screen of auth://sign-in …".
    private static func describe(_ message: FeatureMessage, at location: Location) -> String {
        switch message {
        case .action: "an action on \(location.url)"
        case .willShow: "the opening of \(location.url)"
        default: "the screen of \(location.url)"
        }
    }

    private static func waiting(_ name: String, _ what: String) -> Screen {
        Screen(title: name, content: [], state: .loading("\(name): \(what)"))
    }

    // MARK: Messages from the child

    private func receive(_ message: FeatureMessage) {
        switch gate.admit(message) {
        case .accept: break
        case .ignore: return
        case .cutOff(let what): return cutOff(what)
        }
        switch message {
        case .welcome(_, let json):
            do throws(ManifestError) {
                let manifest = try ManifestCoding.decode(json)
                if let recorded, manifest != recorded {
                    return cutOff(
                        "a manifest other than the one \(recorded.id) registered when it first started (\(Self.difference(manifest, recorded)))"
                    )
                }
                self.manifest = manifest
                phase = .welcomed
                welcomed?(.success(manifest))
                welcomed = nil
                flush()
            } catch {
                cutOff("a manifest the host refuses: \(error.reason)")
            }
        case .refused(let reason, let fix, let code):
            // Only a refusal about the feature's own mocks (solo) has a kind and fix of its own.
            let kind = code.flatMap(Problem.Code.init(rawValue:)).flatMap {
                [.missingRequirement, .mockChoice].contains($0) ? $0 : nil
            }
            welcomed?(
                .failure(
                    Problem(
                        kind ?? .loadFailed, subject: library, reason: reason.withoutEscapeSequences,
                        fix: kind == nil ? "fix the library and rebuild it" : (fix ?? "").withoutEscapeSequences)))
            welcomed = nil
        case .started:
            startAnswered = true
            checkReady()
            registry.startAnswerArrived()
        case .startFailed(let reason):
            let why = reason.withoutEscapeSequences
            if readiness != nil {
                // A new version being swapped in: the running one stays, and the swap says why.
                becameReady(problem: "the new version failed to start: \(why)", fix: "fix its makeRoot/provide")
            } else {
                startFailure = why
                child.kill()
            }
            registry.startAnswerArrived()
        case .screenUpdate(let location, let screen):
            screens[location] = screen
            environment?.invalidate()
        case .done:
            if !tickets.isEmpty { watchdog.answered(tickets.removeFirst()) }
            if gate.pending == 0 { environment?.invalidate() }
            checkReady()
            resumeSettling()
        case .navigate(let step):
            guard let navigation = environment?.navigation else { return }
            if let gated = navigation as? any GatedNavigation {
                // Requests past the budget are a flood, not navigation: the child is cut off as for other floods.
                guard case .overLimit = gated.request(step) else { return }
                return cutOff(
                    "more than \(NavigationGate.burst) navigation requests at once (\(NavigationGate.perSecond) a second after that)"
                )
            }
            switch step {
            case .push(let url): navigation.push(url)
            case .pop: navigation.pop()
            case .popToRoot: navigation.popToRoot()
            case .open(let url): navigation.open(url)
            }
        case .stateWrite(let key, let value):
            _ = grants[key]?.set(value)
        case .snapshot(let snapshot): lastSnapshot = snapshot
        case .restored(let failure):
            restoring = false
            if let failure {
                log("restore failed: \(failure.withoutEscapeSequences)")
                becameReady(
                    problem: "the new version could not take the state: \(failure.withoutEscapeSequences)",
                    fix: "make restore(from:) tolerate older snapshots")
            }
            checkReady()
        case .log(let line): log(line.withoutEscapeSequences)
        case .serviceCall(let id, let key, let request): answer(id: id, key: key, request: request)
        case .serviceReply(let id, let response, let error):
            guard calls.deliver(id: id, response: response, error: error) else {
                return cutOff("a reply to call \(id), which the host never made")
            }
        default: break
        }
    }

    /// Answers a service call the gate let through: it is one the manifest declares and the host granted.
    private func answer(id: UInt64, key: String, request: Data) {
        let requirement = environment?.manifest.requirements.first { $0.key == key && $0.kind == .service }
        let service = requirement.flatMap { environment?.dependencies.value(for: $0) as? ErasedService }
        ServiceCalls.answer(id: id, key: key, request: request, with: service) { [weak self] reply in
            guard let self else { return }
            self.gate.answered()
            _ = self.deliverNow(reply)
        }
    }

    private func printed(_ line: String, isError: Bool) {
        switch gate.admitPrinted() {
        case .accept: log(line)
        case .ignore: return
        case .cutOff(let what): cutOff(what)
        }
    }

    /// What differs between a later child's manifest and the recorded one, for the cut-off's reason.
    private static func difference(_ registered: FeatureManifest, _ recorded: FeatureManifest) -> String {
        if registered.id != recorded.id { return "id '\(registered.id)', not '\(recorded.id)'" }
        if registered.displayName != recorded.displayName {
            return "name '\(registered.displayName.sanitized)', not '\(recorded.displayName.sanitized)'"
        }
        if registered.routes != recorded.routes { return "other routes" }
        return "another version, requirements, tab or capabilities"
    }

    /// Kills the child for breaking the protocol; its end is reported as `feature-protocol`.
    private func cutOff(_ what: String) {
        guard gate.violation == nil else { return }
        gate.violation = what
        if phase == .handshake {
            welcomed?(
                .failure(
                    Problem(
                        .loadFailed, subject: library, reason: "its child sent \(what)",
                        fix: "fix the library and rebuild it")))
            welcomed = nil
        }
        child.kill()
    }

    private func channelEnded(_ end: FeatureChannel.End) {
        if case .violation(let what) = end { cutOff(what) }
        child.kill()
    }

    private func exited(_ termination: ChildProcess.Termination, stderrTail: [String]) {
        let wasStarted = phase == .started
        registry.remove(self)
        guard phase != .ended else { return }
        phase = .ended
        watchdog.cancelAll()
        calls.failAll(ServiceError(code: "unavailable", message: "\(faultName) stopped"))
        observations = []
        resumeSettling()
        becameReady(
            problem:
                "its new child ended: \(FeatureStop(library: library, cause: FeatureExit.cause(of: termination)).reason)"
                + (stderrTail.last.map { ": \($0)" } ?? ""),
            fix: "fix the library and rebuild it; the running version stays")
        if let welcomed {
            self.welcomed = nil
            let last = stderrTail.last.map { ": \($0)" } ?? ""
            let cause = gate.violation.map(FeatureStop.Cause.protocolViolation) ?? FeatureExit.cause(of: termination)
            let ending = FeatureStop(library: library, cause: cause).reason
            welcomed(
                .failure(
                    Problem(
                        .loadFailed, subject: library,
                        reason: "its feature host ended while loading it: \(ending)\(last)",
                        fix:
                            "its initializers or entry end the process that loads it (the probe may not show it);"
                            + " fix them and rebuild")))
        }
        guard wasStarted || environment != nil else { return }
        let cause: FeatureStop.Cause
        if let violation = gate.violation {
            cause = .protocolViolation(violation)
        } else if let startFailure {
            cause = .startFailed(startFailure)
        } else if let request = watchdog.expiredRequest {
            let (seconds, attoseconds) = watchdog.deadline.components
            cause = .hung(request: request, seconds: Int(seconds) + (attoseconds > 0 ? 1 : 0))
        } else {
            let kills = outOfMemoryKillsAtStart.flatMap { before in OutOfMemoryCount.read().map { (before, $0) } }
            cause = FeatureExit.cause(of: termination, outOfMemoryKills: kills)
        }
        environment?.stopped(FeatureStop(library: library, cause: cause, stderrTail: stderrTail))
        environment?.invalidate()
    }
}

extension FeatureMessage {
    /// The message's kind, for protocol errors.
    var name: String { String(String(describing: self).prefix { $0 != "(" }) }

    var isLog: Bool { if case .log = self { true } else { false } }
}
