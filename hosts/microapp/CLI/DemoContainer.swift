import MicroappHost
import MicroappSDK

/// The composition root of the demo app: every service and piece of shared state features may ask for.
enum DemoContainer {
    @MainActor
    static func make() -> Container {
        let container = Container()
        let accounts = InMemoryAccounts()
        let catalog = CharacterCatalog()
        container.share(ServiceKeys.session, ObservableProperty<Session?>(nil))
        container.provide(ServiceKeys.signIn, Service { try accounts.signIn($0) })
        container.provide(ServiceKeys.signUp, Service { try accounts.signUp($0) })
        container.provide(ServiceKeys.page, Service { try catalog.page($0) })
        container.provide(ServiceKeys.detail, Service { try catalog.detail($0) })
        return container
    }

    /// Where the app goes after sign-in and where a run starts.
    static let home = "characters://list"
}
