import MicroappSDK

/// The sign-in form: email and password, checked here, then by the `auth.sign-in` service.
@MainActor
final class SignInViewModel: FormViewModel {
    /// What the screen needs from outside.
    struct Dependencies {
        var signIn: (Credentials) async throws(ServiceError) -> Session
        var saveSession: (Session) -> Void
    }

    var form = Form([
        .init(id: "email", label: "Email", isSecure: false),
        .init(id: "password", label: "Password", isSecure: true),
    ])
    private let dependencies: Dependencies
    let submission: FormSubmission

    init(dependencies: Dependencies, onChange: @escaping () -> Void) {
        self.dependencies = dependencies
        submission = FormSubmission(
            .init(
                title: "Could not sign in", progress: "Signing in…", refusalCode: "wrong-password",
                refusal: "Wrong email or password"),
            onChange: onChange)
    }

    var screen: Screen { screen(title: "Sign in", submitTitle: "Sign in") }

    func submit() {
        guard
            form.validate([
                "email": Validation.email(form["email"]), "password": Validation.passwordGiven(form["password"]),
            ])
        else { return }
        let credentials = Credentials(email: form["email"], password: form["password"])
        let dependencies = dependencies
        submission.start { () async throws(ServiceError) in
            dependencies.saveSession(try await dependencies.signIn(credentials))
        }
    }
}
