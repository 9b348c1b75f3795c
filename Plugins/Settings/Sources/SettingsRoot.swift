import MicroappSDK

/// Settings' live Root: one screen, drawn from the session it observes and the view model's phase.
@MainActor
final class SettingsRoot: Root {
    private let viewModel: SettingsViewModel
    private let session: ObservableValue<Session?>
    private var sessionObservation: Observation?

    init(viewModel: SettingsViewModel, session: ObservableValue<Session?>, invalidate: @escaping () -> Void) {
        self.viewModel = viewModel
        self.session = session
        sessionObservation = session.observe { _ in invalidate() }
    }

    func willShow(_ location: Location) {
        if location.pattern == SettingsFeature.homeURL { viewModel.refreshRecentSearches() }
    }

    func screen(at location: Location) -> Screen {
        guard location.pattern == SettingsFeature.homeURL else {
            return Screen(
                title: "Settings",
                content: [.text(Text("Settings has no screen at \(location.url)", style: .error))])
        }
        return viewModel.screen(for: session.value)
    }

    func handle(_ action: Action, at location: Location) {
        if location.pattern == SettingsFeature.homeURL { viewModel.handle(action, signedIn: session.value != nil) }
    }
}
