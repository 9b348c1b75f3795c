import MicroappSDK

/// What both forms do once their fields are valid: call the service, show progress, and turn its answer into
/// the alert (a refusal the person can fix) or the error state (a failure worth retrying).
@MainActor
final class FormSubmission {
    /// Where the submission is.
    enum Phase: Equatable {
        case editing
        case submitting
        case refused
        case failed(message: String)
    }

    /// The words one form uses: a title for what failed, the progress line, and the refusal to show as an alert.
    struct Wording {
        let title: String
        let progress: String
        let refusalCode: String
        let refusal: String
    }

    static let dismissID = "dismiss"
    static let retryID = "retry"

    private(set) var phase = Phase.editing
    private let wording: Wording
    private let onChange: () -> Void
    private var lastWork: (() async throws(ServiceError) -> Void)?

    init(_ wording: Wording, onChange: @escaping () -> Void) {
        self.wording = wording
        self.onChange = onChange
    }

    /// True while a submission may start: not already running, no alert or error in the way.
    var isIdle: Bool { phase == .editing }

    /// Runs `work` in the background, showing progress until it answers.
    func start(_ work: @escaping () async throws(ServiceError) -> Void) {
        lastWork = work
        phase = .submitting
        Task { @MainActor in
            do throws(ServiceError) {
                try await work()
                phase = .editing
            } catch {
                phase = error.code == wording.refusalCode ? .refused : .failed(message: error.message)
            }
            onChange()
        }
    }

    /// Handles the alert's and error state's buttons; false for any other action.
    func handle(_ action: Action) -> Bool {
        switch (phase, action) {
        case (.refused, .tap(id: Self.dismissID)):
            phase = .editing
            return true
        case (.failed, .tap(id: Self.retryID)):
            if let lastWork { start(lastWork) }
            return true
        default:
            return false
        }
    }

    /// The screen state for the current phase.
    var state: ScreenState {
        switch phase {
        case .editing: .view
        case .submitting: .loading(wording.progress)
        case .refused:
            .alert(
                Alert(
                    title: wording.title, message: wording.refusal, actions: [Button(id: Self.dismissID, title: "OK")]))
        case .failed(let message):
            .error(
                ErrorPanel(title: wording.title, message: message, actions: [Button(id: Self.retryID, title: "Retry")]))
        }
    }
}
