import MicroappCore
import MicroappPlatform

/// Where a person's release keys, trusted keys and channel record live, by the XDG rules the rest of the host
/// follows: keys and trust are configuration (`$XDG_CONFIG_HOME/microapp`, or `~/.config/microapp`), what was seen
/// from channels is state (`$XDG_STATE_HOME/microapp`, or `~/.local/state/microapp`).
///
/// ```
/// <config>/keys/<name>.key        the private key, ed25519-private:<base64>, mode 0600 in a 0700 folder
/// <config>/keys/<name>.pub        the public key, ed25519:<base64>, to share
/// <config>/trusted-keys.json      name → public key (`microapp trust`)
/// <state>/channels.json           per channel: highest index version, highest release per feature
/// ```
public struct ReleaseFolders: Sendable, Equatable {
    /// `…/microapp` under the configuration folder.
    public var config: String
    /// `…/microapp` under the state folder.
    public var state: String

    /// The folders given.
    public init(config: String, state: String) {
        self.config = config
        self.state = state
    }

    /// The folders `environment` names, by the one XDG rule (`HostEnvironment.folder`); with neither the variable nor
    /// a home folder, under the temporary folder (whose files are checked like any other).
    public init(environment: HostEnvironment) {
        self.init(variables: environment.variables, home: environment.home, otherwise: environment.temporaryFolder)
    }

    /// The folders the environment `variables` and the person's `home` name (as `init(environment:)`).
    public init(environment variables: [String: String], home: String) {
        self.init(variables: variables, home: home, otherwise: home)
    }

    private init(variables: [String: String], home: String?, otherwise: String) {
        func base(_ folder: XDGFolder) -> String {
            HostEnvironment.folder(folder, variables: variables, home: home)
                ?? (otherwise + "/" + folder.defaultUnderHome)
        }
        self.init(config: base(.config) + "/microapp", state: base(.state) + "/microapp")
    }

    /// The folder of key pairs.
    public var keys: String { config + "/keys" }
    /// The private key named `name`.
    public func privateKey(_ name: String) -> String { keys + "/\(name).key" }
    /// The public key named `name`.
    public func publicKey(_ name: String) -> String { keys + "/\(name).pub" }
    /// The trust list.
    public var trustList: String { config + "/trusted-keys.json" }
    /// The record of what was seen from channels.
    public var seenVersions: String { state + "/channels.json" }
}
