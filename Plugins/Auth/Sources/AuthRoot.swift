import Foundation
import MicroappSDK

/// Auth's live Root: one view model per screen, each given its dependencies as closures over the host's
/// services, the shared session and the navigator.
@MainActor
final class AuthRoot: Root {
    private let select: SelectViewModel
    private let signIn: SignInViewModel
    private let signUp: SignUpViewModel
    /// Empties both forms whenever the session changes: signed in, what was typed has done its work; signed out,
    /// the next person at the keyboard must not find the last one's email and password filled in.
    private var sessionChanges: Observation?

    init(context: FeatureContext) throws {
        let signInService = try context.service(AuthKeys.signIn)
        let signUpService = try context.service(AuthKeys.signUp)
        let session = try context.property(AuthKeys.session)
        let navigator = context.navigator(AuthRoute.self)
        let saveSession = { (new: Session) in session.value = new }
        let invalidate = { context.invalidate() }
        select = SelectViewModel(
            dependencies: .init(showSignIn: { navigator.push(.signIn) }, showSignUp: { navigator.push(.signUp) }))
        signIn = SignInViewModel(
            dependencies: .init(signIn: signInService.callAsFunction, saveSession: saveSession),
            onChange: invalidate)
        signUp = SignUpViewModel(
            dependencies: .init(signUp: signUpService.callAsFunction, saveSession: saveSession),
            onChange: invalidate)
        sessionChanges = session.observe { [weak self] _ in
            self?.signIn.form.clear()
            self?.signUp.form.clear()
            invalidate()
        }
    }

    func screen(at location: Location) -> Screen {
        switch AuthRoute(location) {
        case .select: select.screen
        case .signIn: signIn.screen
        case .signUp: signUp.screen
        case nil: Screen(title: "Auth", content: [.text(Text("Auth has no screen at \(location.url)", style: .error))])
        }
    }

    func handle(_ action: Action, at location: Location) {
        switch AuthRoute(location) {
        case .select: select.handle(action)
        case .signIn: signIn.handle(action)
        case .signUp: signUp.handle(action)
        case nil: break
        }
    }

    func snapshot() -> Data? {
        try? JSONEncoder().encode(AuthSnapshot(signIn: signIn.form.draft, signUp: signUp.form.draft))
    }

    func restore(from snapshot: Data) throws {
        let saved = try JSONDecoder().decode(AuthSnapshot.self, from: snapshot)
        signIn.form.restore(saved.signIn)
        signUp.form.restore(saved.signUp)
    }
}

/// What a person would lose on a hot swap: the texts typed into each form by field id, except passwords. Every
/// field is optional in the JSON, so any older or newer version's snapshot decodes.
struct AuthSnapshot: Codable, Equatable {
    var signIn: [String: String] = [:]
    var signUp: [String: String] = [:]

    init(signIn: [String: String], signUp: [String: String]) {
        self.signIn = signIn
        self.signUp = signUp
    }

    init(from decoder: any Decoder) throws {
        let saved = try decoder.container(keyedBy: CodingKeys.self)
        signIn = try saved.decodeIfPresent([String: String].self, forKey: .signIn) ?? [:]
        signUp = try saved.decodeIfPresent([String: String].self, forKey: .signUp) ?? [:]
    }
}
