import MicroappSDK

/// The sign-up form: name, email and the password twice, checked here, then by the `auth.sign-up` service.
@MainActor
final class SignUpViewModel: FormViewModel {
    /// What the screen needs from outside.
    struct Dependencies {
        var signUp: (NewAccount) async throws(ServiceError) -> Session
        var saveSession: (Session) -> Void
    }

    var form = Form([
        .init(id: "name", label: "Name", isSecure: false),
        .init(id: "email", label: "Email", isSecure: false),
        .init(id: "password", label: "Password", isSecure: true),
        .init(id: "confirm", label: "Confirm password", isSecure: true),
    ])
    private let dependencies: Dependencies
    let submission: FormSubmission

    init(dependencies: Dependencies, onChange: @escaping () -> Void) {
        self.dependencies = dependencies
        submission = FormSubmission(
            .init(
                title: "Could not create the account", progress: "Creating account…", refusalCode: "account-exists",
                refusal: "An account with this email already exists"),
            onChange: onChange)
    }

    var screen: Screen { screen(title: "Create account", submitTitle: "Create account") }

    func submit() {
        let password = form["password"]
        guard
            form.validate([
                "name": Validation.name(form["name"]), "email": Validation.email(form["email"]),
                "password": Validation.password(password),
                "confirm": Validation.confirmation(form["confirm"], of: password),
            ])
        else { return }
        let account = NewAccount(name: form["name"], email: form["email"], password: password)
        let dependencies = dependencies
        submission.start { () async throws(ServiceError) in
            dependencies.saveSession(try await dependencies.signUp(account))
        }
    }
}
