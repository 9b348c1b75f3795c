import Auth
import Foundation
import MicroappSDK
import MicroappTesting

/// Auth on a harness with a signed-out session it may write, and the mock services unless a test swaps one.
@MainActor
struct AuthFixture {
    let session = ObservableProperty<Session?>(nil)
    let harness: RootDriver

    init(
        open url: String, signIn: Service<Credentials, Session> = .mock, signUp: Service<NewAccount, Session> = .mock,
        restoring snapshot: Data? = nil
    ) throws {
        let dependencies = DependencyValues()
            .provide(AuthKeys.signIn, signIn)
            .provide(AuthKeys.signUp, signUp)
            .share(AuthKeys.session, session, access: .readWrite)
        harness = try RootDriver(AuthFeature.self, dependencies: dependencies, open: url, restoring: snapshot)
    }

    /// Types each (field, text) pair, then taps `submit`.
    func submit(_ entries: KeyValuePairs<String, String>) throws {
        for (id, text) in entries { try harness.type(text, into: id) }
        try harness.tap("submit")
    }
}

extension Service {
    /// A service a test expects never to be called: a call ends in an error state the test would see.
    static func unexpected(_ name: String) -> Self {
        Self { _ in
            throw ServiceError(code: "unexpected", message: "\(name) was called although the form was invalid")
        }
    }
}

extension ServiceError {
    /// What the accounts services say when they are down.
    static let unavailable = ServiceError(code: "unavailable", message: "The accounts service is unavailable")
}
