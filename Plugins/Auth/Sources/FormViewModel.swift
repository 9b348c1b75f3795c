import MicroappSDK

/// What the sign-in and sign-up view models share: a form, a submission, and the way actions reach them.
@MainActor
protocol FormViewModel: AnyObject {
    /// The fields.
    var form: Form { get set }
    /// The call to the service behind the form.
    var submission: FormSubmission { get }
    /// Validates the form and, when it is valid, starts the submission.
    func submit()
}

extension FormViewModel {
    /// The form's screen: its fields, a submit button, and the submission's state over them.
    func screen(title: String, submitTitle: String) -> Screen {
        Screen(
            title: title, content: form.elements + [.button(Button(id: "submit", title: submitTitle))],
            state: submission.state)
    }

    /// Edits go to the fields, `submit` submits, the alert's and error state's buttons go to the submission.
    func handle(_ action: Action) {
        guard !submission.handle(action) else { return }
        switch action {
        case .input(let id, let text) where form.contains(id): form[id] = text
        case .tap(id: "submit") where submission.isIdle: submit()
        default: break
        }
    }
}
