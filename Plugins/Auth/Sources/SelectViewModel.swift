import MicroappSDK

/// The welcome screen: two ways in.
@MainActor
final class SelectViewModel {
    /// What the screen needs from outside: where each button goes.
    struct Dependencies {
        var showSignIn: () -> Void
        var showSignUp: () -> Void
    }

    private let dependencies: Dependencies

    init(dependencies: Dependencies) { self.dependencies = dependencies }

    var screen: Screen {
        Screen(
            title: "Welcome",
            content: [
                .text(Text("Sign in or create an account to browse characters.")),
                .stack(
                    Stack(
                        .horizontal,
                        [
                            .button(Button(id: "sign-in", title: "Sign in")),
                            .button(Button(id: "sign-up", title: "Create account")),
                        ])),
            ])
    }

    func handle(_ action: Action) {
        switch action {
        case .tap(id: "sign-in"): dependencies.showSignIn()
        case .tap(id: "sign-up"): dependencies.showSignUp()
        default: break
        }
    }
}
