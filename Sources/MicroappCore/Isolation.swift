import MicroappSDK

/// Where a feature's code runs: in the host's process, or in a sandboxed child process of its own.
public enum Isolation: String, Codable, Sendable, CaseIterable {
    /// In a child process of its own, sandboxed before the library is loaded.
    case process
    /// In the host's process (fast, hot-swappable, and able to take the app down with it); `none` in JSON and on the
    /// command line (a case named `none` would be mistaken for `Optional.none`).
    case inProcess = "none"
}

/// What the command line asks for (`--isolation auto|process|none`).
public enum IsolationChoice: String, Sendable, CaseIterable {
    /// Each library as its origin and the lock say (the default).
    case auto
    /// Every feature in a process of its own.
    case process
    /// Every feature in the host's process (`none`).
    case inProcess = "none"
}

/// The facts about one library that the isolation decision rests on, gathered by the platform layer.
public struct LibraryTrust: Sendable, Equatable {
    /// Where a library was found.
    public enum Origin: Sendable, Equatable {
        /// The build folder of the repository the host was built in (its `Plugins/` features, or an app's own targets).
        case repository
        /// The folder of the host executable outside a repository (an installed app).
        case besideHost
        /// A folder named with `--plugins DIR`.
        case pluginsFolder(String)
    }

    /// What the folder's `plugins.lock` says about the library.
    public enum Lock: Sendable, Equatable {
        /// The folder has no lock.
        case absent
        /// The lock is trusted and pins the library's bytes; `setting` is its entry's `isolation`, if any.
        case pinned(setting: Isolation?)
        /// The lock was ignored: the file or its folder could be written by someone else (the reason says how).
        case untrusted(String)
    }

    /// Where the library was found.
    public var origin: Origin
    /// What its folder's lock says.
    public var lock: Lock

    /// Describes a library found at `origin` under `lock`.
    public init(origin: Origin, lock: Lock) {
        self.origin = origin
        self.lock = lock
    }
}

/// Where one feature runs, and why (`from the plugin folder /opt/extra`, `--isolation none`): shown by `routes`, `doctor`
/// and the footer.
public struct IsolationDecision: Codable, Sendable, Equatable {
    /// The mode decided.
    public var mode: Isolation
    /// Why, in a few words.
    public var reason: String

    /// A decision.
    public init(_ mode: Isolation, reason: String) {
        self.mode = mode
        self.reason = reason
    }

    /// Decides where a library's feature runs: the command line's `process` or `none` for every library; under
    /// `auto`, the lock entry's own setting, else isolated when the lock was ignored, the library comes from a
    /// `--plugins` folder or an installed host's folder without a lock, and in-process for the repository's own
    /// features and libraries a trusted lock pins beside the host.
    public static func decide(_ choice: IsolationChoice, for library: LibraryTrust) -> IsolationDecision {
        switch choice {
        case .process: return IsolationDecision(.process, reason: "--isolation process")
        case .inProcess: return IsolationDecision(.inProcess, reason: "--isolation none")
        case .auto: break
        }
        switch (library.lock, library.origin) {
        case (.pinned(let setting?), _):
            return IsolationDecision(setting, reason: "plugins.lock sets isolation \(setting.rawValue)")
        case (.untrusted(let why), _):
            return IsolationDecision(.process, reason: "plugins.lock is ignored (\(why))")
        case (_, .pluginsFolder(let folder)):
            return IsolationDecision(.process, reason: "from the plugin folder \(folder)")
        case (.absent, .besideHost):
            return IsolationDecision(.process, reason: "not pinned by a plugins.lock")
        case (.pinned, .besideHost):
            return IsolationDecision(.inProcess, reason: "pinned by plugins.lock")
        case (_, .repository):
            return IsolationDecision(.inProcess, reason: "built in this repository's own build folder")
        }
    }
}
