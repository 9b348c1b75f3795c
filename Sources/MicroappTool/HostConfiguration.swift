import CommandLineSpec
import MicroappCore
import MicroappDevLoop
import MicroappPlatform

/// What makes this host one particular app: the values the generic commands (`run`, `solo`, `routes`, `doctor`,
/// `graph`, `keys`) take instead of an app's own constants. Built once in the app's composition root (its main.swift).
public struct HostConfiguration: Sendable {
    /// What the app's services are opened for.
    public enum ServicesUse: Sendable {
        /// A run: data, network, everything features call.
        case live
        /// An inspect command: the same keys and types offered, nothing opened, no feature started.
        case inspection
    }

    /// The app's name, in the header of every screen.
    public var name: String
    /// The command people type to run this host: every message, help text, fix and "next:" line says it. By default
    /// the executable's own file name (`hello-host`).
    public var commandName = FileFacts.executable.lastPathComponent
    /// Where a run starts and where sign-in continues to when nothing was pending (`--home` overrides it).
    public var home: String
    /// The sign-in route used when no loaded feature declares one with `isSignIn` (in `solo`, its stub is shown
    /// for a guarded route opened signed out); nil: only a declared one.
    public var signInFallback: String?
    /// Opens the container of the app's services for `use`, given the command line (where it reads the app's own
    /// `options`, typed: `arguments[AppOptions.region]`, say); blocking work in it runs off the main actor.
    public var services: @MainActor @Sendable (ServicesUse, Arguments) async throws -> Container
    /// The app's own options of `run` (where its data lives, which server it talks to): declared here, typed
    /// (`OptionSpec(…).option`), they are parsed, shown in `run --help` and read by `services`. The tool declares
    /// none of any app's.
    public var options: [Option] = []
    /// The app's own commands, beside the tool's (`microapp NAME`): each parsed by its declaration, listed in
    /// `microapp --help`, and run with this configuration. A name the tool already has is refused at start.
    public var commands: [any Command.Type] = []
    /// The feature that owns each piece of shared state (`["session": "auth"]`): another feature claiming it
    /// read-write is refused, naming the owner, and the owner runs; a key not named here refuses every claimant.
    public var stateOwners: [String: String] = [:]
    /// The feature whose sign-in route the app uses (`auth`): another feature declaring one is refused; nil refuses
    /// every sign-in route when there are two.
    public var signInFeature: String?
    /// Route schemes kept for the host's own features, scheme → feature id (`["auth": "auth"]`): another feature
    /// declaring a route there is refused (`scheme-taken`), even when the owner is not loaded.
    public var reservedSchemes: [String: String] = [:]
    /// Display names and tab titles kept for the host's own features, name → feature id (`["Settings": "settings"]`):
    /// another feature showing that name is refused (`name-taken`), even when the owner is not loaded.
    public var reservedNames: [String: String] = [:]
    /// Who may use each service and state key the app offers (`["auth.sign-in": .only("auth")]`); a key not named
    /// follows `GrantRule.default` (the repository's own features and pinned folders, never an untrusted one).
    /// `--grant FEATURE=KEY` and a trusted lock entry's `grants` give more by name.
    public var grants: [String: GrantRule] = [:]

    /// The host's own features, as the rules above name them (sign-in feature, state owners, reserved schemes and
    /// names): a channel's release of one is taken only from a key whose trust entry names its id.
    public var hostFeatures: Set<String> {
        Set(stateOwners.values).union(reservedSchemes.values).union(reservedNames.values)
            .union(signInFeature.map { [$0] } ?? [])
    }

    /// Describes an app: its name, home route, sign-in fallback and how its services are opened.
    public init(
        name: String, home: String, signInFallback: String? = nil,
        services: @escaping @MainActor @Sendable (ServicesUse, Arguments) async throws -> Container
    ) {
        self.name = name
        self.home = home
        self.signInFallback = signInFallback
        self.services = services
    }
}
