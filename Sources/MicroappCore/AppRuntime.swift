import MicroappSDK

/// The running app: features started from loaded images, one back stack across them, frames for front ends.
@MainActor
public final class AppRuntime: AppDriver {
    /// Choices made by the composition root.
    public struct Options: Sendable {
        /// The app's name, on the host's own screens (nothing running, a route that cannot open).
        public var name: String
        /// Where to go after signing in when nothing was pending, and where a run starts without `--open`.
        public var home: String?
        /// How the app runs (`solo` when one feature runs alone), in every frame.
        public var mode: Frame.Mode
        /// In solo, the mocks in use (`characters.page=default`), in every frame.
        public var mocks: [String]
        /// Solo: routes of features that are not loaded show a stub screen (and `home` after sign-in
        /// may be one); nil in the full app, where they show a problem screen.
        public var foreign: ForeignRoutes?
        /// How many stops in how long turn a feature off instead of offering Restart again.
        public var stopLimit: StopLimit
        /// Time on the host's clock since the run began: when stops happened (a test drives it by hand).
        public var uptime: @Sendable () -> Duration
        /// Reads the host's clock (`HostEnvironment.now`): how long a swap took.
        public var now: @Sendable () -> ContinuousClock.Instant
        /// Where each feature runs, by id, for the frame's `isolation`.
        public var isolation: [String: Isolation]
        /// How the host says the tool's command in a notice's text and fix (`microapp routes` → `hello-host routes`);
        /// the lines a feature printed (`log`) are left as they are.
        public var spoken: @Sendable (String) -> String = { $0 }
        /// Features whose start waits (`run` with isolated features known from their records): each starts when a
        /// route of its is first shown, else after the first frame without a loading screen, in start order; then a
        /// `ready` notice says all answered their start. Empty: every feature starts with the runtime.
        public var startsLater: Set<String> = []

        /// Creates options.
        public init(
            name: String = "Microapps", home: String? = nil, mode: Frame.Mode = .run, mocks: [String] = [],
            foreign: ForeignRoutes? = nil, stopLimit: StopLimit = StopLimit(),
            uptime: (@Sendable () -> Duration)? = nil, isolation: [String: Isolation] = [:],
            now: @escaping @Sendable () -> ContinuousClock.Instant
        ) {
            self.name = name
            self.home = home
            self.mode = mode
            self.mocks = mocks
            self.foreign = foreign
            self.stopLimit = stopLimit
            // The host's clock (its environment's `now`): the core reads none of its own.
            self.now = now
            let began = now()
            self.uptime = uptime ?? { now() - began }
            self.isolation = isolation
        }
    }

    /// A feature that started: the version on screen, its Root, and the code it came from.
    struct RunningFeature {
        var manifest: FeatureManifest
        var root: any Root
        var version: FeatureVersion
        /// Which start made `root`: a stop reported by an earlier start (a version swapped out) is not this one's.
        var start: Int
    }

    /// One loaded version of a feature's code: enough to make a Root again (rollback, restart).
    @MainActor
    struct FeatureVersion {
        let manifest: FeatureManifest
        let factory: any FeatureFactory
        /// The version number shown in frames and swap notices.
        let number: Int
        /// The library path, or `linked …`.
        let origin: String

        init(manifest: FeatureManifest, factory: any FeatureFactory, number: Int) {
            self.manifest = manifest
            self.factory = factory
            self.number = number
            self.origin = factory.origin
        }
    }

    let container: Container
    /// How the runtime was asked to run (name, home, mode, clock).
    public let options: Options
    /// What each feature may be handed (the resolution's grants), checked on every start and swap, and how far each
    /// is trusted (for the frame's `origin`).
    let grants: GrantTable?
    var features: [String: RunningFeature] = [:]
    /// Earlier working versions of each swapped feature, oldest first (their images stay loaded).
    var previousVersions: [String: [FeatureVersion]] = [:]
    /// The highest version number each feature ran at, so numbers only grow across swaps and rollbacks.
    var newestVersions: [String: Int] = [:]
    var router: Router
    /// Features whose process ended, by id, until a Restart or a swap brings them back.
    var stopped: [String: StoppedFeature] = [:]
    /// When each feature stopped, on `options.uptime`, within the last `options.stopLimit.window`.
    var stopTimes: [String: [Duration]] = [:]
    /// Counts the starts of Roots, so a stop names the start it belongs to.
    var startCount = 0
    /// Features of `Options.startsLater` not started yet, in start order.
    var pendingStarts: [FeatureSource] = []
    /// Whether the features still pending after the first frame were set to start.
    var lateStartsBegun = false
    /// Whether the runtime is made: a start problem after that is posted, not only kept in `startProblems`.
    var isMade = false
    private var pendingNotices: [Notice] = []
    private var updateScheduled = false
    /// Work under way that the next event waits for (a hot swap), by what it is.
    private var heldWork: [String] = []
    /// Swaps between their start and their end (`replaceWhenReady`): events wait in `queuedEvents` meanwhile.
    var swapsUnderWay = 0
    /// Events that arrived while a swap was under way, in order, for whichever version runs once it ended.
    var queuedEvents: [Event] = []
    private var sessionObservation: Observation?
    let session: ObservableProperty<Session?>?
    /// Which navigation requests of features move the person (see `NavigationGate`).
    var navigationGate = NavigationGate()

    /// Problems met while starting features (after resolution), in the same form as loader problems.
    public internal(set) var startProblems: [Problem] = []
    /// Set by front ends; called after the frame changed.
    public var onUpdate: ((Frame, [Notice]) -> Void)?
    /// Set by whoever follows a channel (`run --channel`): a `check-updates` event starts a check; nil, it is refused.
    public var onCheckUpdates: (() -> Void)?
    /// Set by whoever watches features on trial (the canary of live updates): hears each stop of a feature's process
    /// after it was recorded.
    public var onFeatureStop: ((_ feature: String, _ stop: FeatureStop) -> Void)?
    /// Told, on the main actor, the feature whose Root is about to be called in this thread (an action, a screen),
    /// then nil once it returned: a watchdog off the main thread (`MainThreadWatchdog`) can catch an in-process
    /// Root that never returns, which nothing on the main actor could.
    public var onFeatureCall: ((String?) -> Void)?

    /// The Root `feature` runs now, nil when it runs none.
    public func root(of feature: String) -> (any Root)? { features[feature]?.root }
    /// True after a `quit` event.
    public private(set) var hasQuit = false

    /// Starts every sound feature of `resolution` from `images`, providers first.
    public convenience init(
        images: [any LoadedPlugin], resolution: Resolution, container: Container, options: Options
    ) {
        self.init(
            sources: images.map(FeatureSource.plugin), resolution: resolution, container: container, options: options)
    }

    /// Starts every sound feature of `resolution` from `sources` (plugins or linked-in types), providers first.
    public init(sources: [FeatureSource], resolution: Resolution, container: Container, options: Options) {
        self.container = container
        self.options = options
        self.grants = resolution.grants
        self.session = container.property(.session(access: .readWrite))
        let manifests = sources.map(\.manifest).filter { resolution.startOrder.contains($0.id) }
        router = Router(table: RouteTable(manifests), disabled: resolution.disabled, foreign: options.foreign)
        let byID = Dictionary(sources.map { ($0.manifest.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in resolution.startOrder {
            guard let source = byID[id] else { continue }
            if options.startsLater.contains(id) {
                pendingStarts.append(source)
            } else {
                startProviders(of: source.manifest)
                start(source)
            }
        }
        isMade = true
        sessionObservation = session?.observe { [weak self] session in self?.sessionChanged(signedIn: session != nil) }
    }

    /// The features that run or are still to start (`Options.startsLater`), by id.
    public var runningFeatures: [FeatureManifest] {
        (features.values.map(\.manifest) + pendingStarts.map(\.manifest)).sorted { $0.id < $1.id }
    }

    /// Opens the first screen: `url`, or the home route if a running feature answers it, or the first route of
    /// the first feature.
    public func open(_ url: String? = nil) {
        guard let target = url ?? home else { return }
        navigate(to: target)
    }

    /// The home route if it can open, else the first route of the first running feature.
    private var home: String? {
        if let home = options.home, router.table.match(home) != nil { return home }
        return router.table.entries.first?.pattern.description
    }

    // MARK: AppDriver

    /// The frame for the screen on top of the back stack, with the chrome every frame shares.
    public var frame: Frame {
        var frame = screenFrame
        frame.tabs = tabs
        frame.account = session?.value?.email
        frame.mode = options.mode
        frame.mocks = options.mocks
        frame.depth = max(0, router.stack.count - 1)
        frame.isolation = options.isolation[frame.feature]
        frame.origin = origin(of: frame.feature)
        frame.app = options.name
        frame.hasAccounts = session == nil ? false : nil
        return frame
    }

    /// The frame of the screen on top, without the chrome every frame shares (tabs, account, mode, depth).
    private var screenFrame: Frame {
        guard let top = router.top else {
            return Frame(
                feature: "microapp", featureName: options.name, version: 0, route: "",
                screen: Screen(title: "Nothing to show", content: [.text(Text("No feature is running."))]))
        }
        switch top {
        case .feature(let id, let location):
            guard let feature = features[id] else { return problemFrame(top.url, nil) }
            if let stop = stopped[id] { return stoppedFrame(feature, stop, at: location) }
            onFeatureCall?(id)
            defer { onFeatureCall?(nil) }
            return Frame(
                feature: id, featureName: feature.manifest.displayName, version: feature.version.number,
                route: location.url, screen: feature.root.screen(at: location))
        case .problem(let url, let problem):
            return problemFrame(url, problem)
        case .stub(let url, let feature):
            return Frame(
                feature: "microapp", featureName: "\(feature) (not loaded)", version: 0, route: url,
                screen: ForeignRoutes.stubScreen(url: url, feature: feature))
        }
    }

    /// Why an event sent now would not be handled as a person would handle it, nil once the app has settled: no
    /// loading screen, no redraw and no hot swap pending.
    public var unsettledReason: String? {
        if let work = heldWork.first { return "\(work) is under way" }
        if swapsUnderWay > 0 { return "a swap is under way" }
        if updateScheduled { return "a redraw is pending" }
        for feature in features.values {
            if let reason = (feature.root as? any SettlingRoot)?.unsettledReason { return reason }
        }
        return frame.loadingReason
    }

    /// Marks `work` as under way until `release` is called: events wait for it (see `unsettledReason`).
    public func hold(_ work: String) {
        heldWork.append(work)
    }

    /// Ends work started with `hold(_:)` and redraws, so front ends waiting for the app to settle look again.
    public func release(_ work: String) {
        if let index = heldWork.firstIndex(of: work) { heldWork.remove(at: index) }
        scheduleUpdate()
    }

    /// Handles one event from a front end.
    public func send(_ event: Event) {
        // An event for the old version while its state moves to the new one would be lost: it waits for the swap's
        // end. Quitting does not wait.
        if swapsUnderWay > 0 && event != .quit {
            queuedEvents.append(event)
            return
        }
        switch event {
        case .action(.tap(let id)) where openTab(id): navigationGate.personNavigated()
        case .action(let action):
            guard let top = router.top else { break }
            // Only what the screen offers is done, on feature and host screens alike: a script's stale or mistyped
            // id is answered here.
            if let reason = frame.screen.refusal(of: action) {
                post(
                    Notice(
                        level: .error, code: .notOnScreen, message: "\(reason); nothing was done",
                        fix: "act on an element of the latest frame", feature: top.feature))
            } else if case .feature(let id, _) = top, stopped[id] != nil {
                navigationGate.personNavigated()
                handleOnStoppedScreen(action, of: id)
            } else if case .feature(let id, let location) = top {
                // Before the feature handles it: what it does in answer may navigate (see `NavigationGate`).
                navigationGate.personActed(on: id, at: options.uptime())
                onFeatureCall?(id)
                features[id]?.root.handle(action, at: location)
                onFeatureCall?(nil)
            } else if action == .tap(id: "back") {
                // The problem and stub screens offer only Back.
                navigationGate.personNavigated()
                goBack()
            }
        case .back:
            navigationGate.personNavigated()
            goBack()
        case .open(let url):
            navigationGate.personNavigated()
            navigate(to: url)
        case .rollback(let feature):
            rollback(feature)
        case .checkUpdates:
            checkUpdates()
        case .quit: hasQuit = true
        }
        scheduleUpdate()
    }

    // MARK: Navigation (from features and events)

    func navigate(to url: String) {
        if let notice = router.open(url, signedIn: session?.value != nil) { post(notice) }
        showTop()
        // A feature that answers the route with its error screen at once (a parameter it cannot read) said the URL
        // cannot open, as the host's problem screen does: front ends hear it as a problem too.
        if case .feature(let id, _) = router.top, stopped[id] == nil, case .error(let panel) = frame.screen.state {
            post(
                Notice(
                    level: .error, code: .screenError,
                    message: panel.message.isEmpty ? panel.title : panel.message,
                    fix: "go back, or open another route (`microapp routes` lists them)", feature: id))
        }
    }

    func goBack() {
        if router.back() {
            showTop()
        } else {
            post(
                Notice(
                    level: .info, code: .noBack, message: "This is the first screen; there is nothing to go back to"))
        }
    }

    func popToRoot(of feature: String) {
        router.popToRoot(of: feature)
        showTop()
    }

    /// Asks front ends to redraw soon; many calls in one turn make one update.
    func scheduleUpdate() {
        guard !updateScheduled else { return }
        updateScheduled = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            self.updateScheduled = false
            let notices = self.pendingNotices
            self.pendingNotices = []
            self.onUpdate?(self.frame, notices)
            self.startRemainingOnceDrawn()
        }
    }

    /// Starts a check of the app's channel, or says that the app follows none.
    private func checkUpdates() {
        guard let onCheckUpdates else {
            return post(
                Notice(
                    level: .error, code: .noChannel, message: "This app follows no channel: nothing to check",
                    fix: "start it with `microapp run --channel URL`"))
        }
        onCheckUpdates()
    }

    /// Shows notices beside the next frame (start-up problems, for instance).
    public func announce(_ notices: [Notice]) {
        notices.forEach(post)
    }

    package func post(_ notice: Notice) {
        var notice = notice
        if notice.code != Notice.logCode {
            notice.message = options.spoken(notice.message)
            notice.fix = notice.fix.map(options.spoken)
        }
        pendingNotices.append(notice)
        scheduleUpdate()
    }

    func showTop() {
        // A person who opens a feature that has not started yet waits for that one only.
        if case .feature(let id, _) = router.top { startPending(id) }
        if case .feature(let id, let location) = router.top, stopped[id] == nil {
            features[id]?.root.willShow(location)
        }
        scheduleUpdate()
    }

    private func sessionChanged(signedIn: Bool) {
        // In solo home may be a route of a feature that is not loaded: its stub shows where sign-in goes.
        let afterSignIn = options.foreign != nil ? options.home ?? home : home
        var next: String?
        if signedIn { next = router.didSignIn(home: afterSignIn ?? "") } else { router.didSignOut() }
        if let next, !next.isEmpty {
            navigate(to: next)
        } else if router.top == nil {
            open()
        } else {
            showTop()
        }
    }

    /// Starts `source` with `factory` (registered now when nil); a problem after the runtime was made is posted too.
    func start(_ source: FeatureSource, factory registered: (any FeatureFactory)? = nil) {
        let manifest = source.manifest
        let factory: any FeatureFactory
        switch registered.map(Result.success) ?? source.register() {
        case .success(let registered): factory = registered
        case .failure(let problem):
            return startFailed(problem)
        }
        do {
            let version = FeatureVersion(manifest: manifest, factory: factory, number: manifest.version)
            let prepared = try prepareRoot(version)
            publish(prepared)
            features[manifest.id] = RunningFeature(
                manifest: manifest, root: prepared.root, version: version, start: prepared.start)
        } catch let problem as Problem {
            // A factory that could not load the feature's code says so in a load problem of its own.
            startFailed(problem)
        } catch {
            startFailed(
                Problem(
                    .startFailed, subject: manifest.id, reason: "it failed to start: \(error)",
                    fix: "run `swift test --filter \(manifest.displayName)` to see it fail with its mocks"))
        }
    }

    /// Keeps a start's problem; one after the runtime was made (a late start) is posted as well.
    private func startFailed(_ problem: Problem) {
        startProblems.append(problem)
        if isMade { post(problem.notice) }
    }

    /// A Root made from a version, with the services its `provide(_:)` gave, not yet handed out to others.
    struct PreparedRoot {
        let root: any Root
        let manifest: FeatureManifest
        /// Which start this is (see `RunningFeature.start`).
        let start: Int
        let services: [(provision: Provision, service: ErasedService)]
    }

    /// Makes the Root of `version` without changing what the container hands out (a swap may still give it up).
    func prepareRoot(_ version: FeatureVersion) throws -> PreparedRoot {
        let manifest = version.manifest
        let dependencies = FeatureDependencies(container: container, manifest: manifest, grants: grants)
        startCount += 1
        let start = startCount
        // The feature's own Root may need what it provides (it is not in the container until the Root is made).
        let environment = FeatureEnvironment(
            manifest: manifest, dependencies: dependencies,
            navigation: FeatureNavigation(feature: manifest.id, runtime: self),
            invalidate: { [weak self] in self?.scheduleUpdate() },
            stopped: { [weak self] in self?.featureStopped(manifest.id, $0, start: start) },
            failedToLoad: { [weak self] in self?.featureFailedToLoad(manifest.id, $0, start: start) },
            offerOwnServices: { dependencies.provided.merge($0) { _, new in new } })
        let started = try version.factory.start(in: environment)
        do {
            let services = try manifest.provides.map { provision in
                guard let service = started.services[provision.key] else {
                    throw DependencyError.notProvided(provision.key)
                }
                return (provision: provision, service: service)
            }
            return PreparedRoot(root: started.root, manifest: manifest, start: start, services: services)
        } catch {
            // A Root that will never run must not keep its process (an isolated feature's child) alive.
            (started.root as? any SettlingRoot)?.retire()
            throw error
        }
    }

    /// Hands out the services of a Root that started (on a swap, to the features already holding them).
    func publish(_ prepared: PreparedRoot) {
        for (provision, service) in prepared.services {
            container.provide(
                provision.key, type: provision.type, service: service, by: prepared.manifest.id,
                summary: provision.summary, shape: provision.shape)
        }
    }

    /// The host's screen for a route that cannot open: the URL in the title, the reason once, then the fix.
    private func problemFrame(_ url: String, _ problem: Problem?) -> Frame {
        let reason = problem?.reason ?? "the feature is not running"
        let screen = Screen(
            title: "Cannot open \(url)", content: [],
            state: .error(
                ErrorPanel(
                    title: reason, message: problem.map { "To fix: \(options.spoken($0.fix))" } ?? "",
                    actions: [Button(id: "back", title: "Back")])))
        return Frame(feature: "microapp", featureName: options.name, version: 0, route: url, screen: screen)
    }
}
