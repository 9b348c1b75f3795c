import MicroappSDK

// A feature's own navigation (its Navigator in this process, its child's `navigate` messages when isolated) passes the
// runtime's `NavigationGate`: it moves the person only from the feature's own screen, in answer to their action there,
// within the feature's budget. The person's events and the host's redirects (sign-in, sign-out) never pass it.

/// A feature's navigation as the host gates it: each request is carried out or dropped, and the verdict returned (an
/// isolated feature's host side cuts off a child whose requests go over the limit).
@MainActor
public protocol GatedNavigation: NavigationHost {
    /// Carries out `step` when the gate allows it; returns the gate's verdict.
    @discardableResult
    func request(_ step: WireNavigation) -> NavigationGate.Verdict
}

extension AppRuntime {
    /// `feature` asks to move the back stack: carried out when the gate allows it, else dropped with a
    /// `navigation-refused` notice naming the feature (once per burst for requests over the limit).
    func featureNavigates(_ feature: String, _ step: WireNavigation) -> NavigationGate.Verdict {
        let verdict = navigationGate.request(from: feature, onTop: router.top?.feature, at: options.uptime())
        switch verdict {
        case .allowed:
            switch step {
            case .push(let url), .open(let url): navigate(to: url)
            case .pop: goBack()
            case .popToRoot: popToRoot(of: feature)
            }
        case .notOnTop(let onTop):
            let shown = onTop.map { "\($0)'s screen" } ?? "a screen of the host"
            refuse(feature, step, because: "while \(shown) is on top")
        case .notInAnswer:
            let seconds = NavigationGate.window.components.seconds
            refuse(
                feature, step,
                because: "without the person acting on its screen in the last \(seconds) s (or after they navigated)")
        case .overLimit(let first):
            guard first else { break }
            refuse(
                feature, step,
                because:
                    "past its budget of \(NavigationGate.burst) requests at once, \(NavigationGate.perSecond) a second after that"
            )
        }
        return verdict
    }

    private func refuse(_ feature: String, _ step: WireNavigation, because reason: String) {
        post(
            Notice(
                level: .error, code: .navigationRefused,
                message: "\(feature) asked to \(Self.describe(step)) \(reason); the person stays where they are",
                fix: "a feature navigates only from its own screen on top, in answer to the person's action there",
                feature: feature))
    }

    private static func describe(_ step: WireNavigation) -> String {
        switch step {
        case .push(let url): "push \(url.sanitized)"
        case .open(let url): "open \(url.sanitized)"
        case .pop: "go back"
        case .popToRoot: "go back to its first screen"
        }
    }

    /// The origin of `feature`'s screens, nil when it is not a running feature (the host's own screens).
    func origin(of feature: String) -> Frame.Origin? {
        guard let trust = grants?.trust[feature],
            let library = features[feature]?.version.origin
                ?? pendingStarts.first(where: { $0.manifest.id == feature })?.origin
        else { return nil }
        return Frame.Origin(trust: trust, feature: feature, library: library)
    }
}

/// A feature's view of the back stack: its calls land in the runtime with the feature's id attached, through the gate.
@MainActor
final class FeatureNavigation: GatedNavigation {
    private let feature: String
    private weak var runtime: AppRuntime?

    init(feature: String, runtime: AppRuntime) {
        self.feature = feature
        self.runtime = runtime
    }

    @discardableResult
    func request(_ step: WireNavigation) -> NavigationGate.Verdict {
        runtime?.featureNavigates(feature, step) ?? .notOnTop(onTop: nil)
    }

    func push(_ url: String) { _ = request(.push(url)) }
    func pop() { _ = request(.pop) }
    func popToRoot() { _ = request(.popToRoot) }
    func open(_ url: String) { _ = request(.open(url)) }
}
