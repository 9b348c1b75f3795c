import Auth
import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Auth on its own mocks")
struct AuthMocksTests {
    @Test("the mocks cover every requirement, signed out")
    func mocksCoverEveryRequirement() {
        let mocks = AuthFeature.mocks()
        #expect(mocks.unmocked(in: AuthFeature.manifest).isEmpty)
        #expect((mocks.states["session"]?.property as? ObservableProperty<Session?>)?.value == nil)
    }

    @Test("Rick signs in with rick@example.com and portal-gun")
    func rickSignsIn() async throws {
        let mocks = AuthFeature.mocks()
        let harness = try RootDriver(
            AuthFeature.self, dependencies: try DependencyValues(mocks), open: "auth://sign-in")
        try harness.type(MockAccount.rick.session.email, into: "email")
        try harness.type(MockAccount.rick.password, into: "password")
        try harness.tap("submit")
        _ = try await harness.next { $0.state == .view }
        #expect((mocks.states["session"]?.property as? ObservableProperty<Session?>)?.value == MockAccount.rick.session)
    }

    @Test("the failing variant shows the error state")
    func failingVariant() async throws {
        let harness = try RootDriver(AuthFeature.self, open: "auth://sign-up", mocks: ["auth.sign-up": "failing"])
        for (id, text) in [
            "name": "Squanchy", "email": "sq@example.com", "password": "squanch-y", "confirm": "squanch-y",
        ] {
            try harness.type(text, into: id)
        }
        try harness.tap("submit")
        let screen = try await harness.next { $0.state != .loading("Creating account…") }
        #expect(screen.element(id: "retry") != nil)
    }
}
