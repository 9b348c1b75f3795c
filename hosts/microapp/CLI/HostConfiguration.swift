import MicroappCore
import MicroappDevLoop
import MicroappPlatform

/// What makes this host one particular app: the values the generic commands (`run`, `solo`, `routes`, `doctor`,
/// `graph`) take instead of an app's own constants. Built once in the composition root (main.swift).
struct HostConfiguration: Sendable {
    /// What the app's services are opened for.
    enum ServicesUse: Sendable {
        /// A run: data, network, everything features call.
        case live
        /// An inspect command: the same keys and types offered, nothing opened, no feature started.
        case inspection
    }

    /// The app's name, on the host's own screens.
    var name: String
    /// Where a run starts and where sign-in continues to when nothing was pending (`--home` overrides it).
    var home: String
    /// The sign-in route used when no loaded feature declares one with `isSignIn` (in `solo`, its stub is shown
    /// for a guarded route opened signed out); nil: only a declared one.
    var signInFallback: String?
    /// Opens the container of the app's services for `use`, given the command line (`--data`, say); blocking work
    /// in it runs off the main actor.
    var services: @MainActor @Sendable (ServicesUse, Arguments) async throws -> Container
}
