import Foundation

/// What a host reads from the world it runs in: its environment variables, its home and temporary folders, its
/// current directory and its two clocks. One value, made once by a composition root (an app's `main.swift`, a child
/// process's own entry: `HostEnvironment.process` from the platform) and passed down, so nothing below reads
/// `ProcessInfo`, a clock or the temporary folder ambiently and a test states the environment it runs in instead of
/// setting variables for a whole process. The layer test bans the spellings; the few places that keep a live clock of
/// their own (a system wait's deadline, the terminal's timing of what a person sees) are named there, each with why.
public struct HostEnvironment: Sendable {
    /// The environment variables (`MICROAPP_ZYGOTE`, `XDG_CACHE_HOME`, …).
    public var variables: [String: String]
    /// The person's home folder (an absolute path), nil when there is none.
    public var home: String?
    /// The folder temporary files and folders go in (`$TMPDIR`, else `/tmp`), absolute.
    public var temporaryFolder: String
    /// The current directory, absolute: relative paths on a command line are relative to it.
    public var currentDirectory: String
    /// Reads the clock durations are measured on (elapsed times, deadlines).
    public var now: @Sendable () -> ContinuousClock.Instant
    /// Reads the wall clock dates are written from (a release's signing time, an install's date, an index's expiry).
    public var date: @Sendable () -> Date

    /// An environment of `variables`, `home`, `temporaryFolder` and `currentDirectory`, timed by `now` and dated by
    /// `date`.
    public init(
        variables: [String: String], home: String?, temporaryFolder: String, currentDirectory: String,
        now: @escaping @Sendable () -> ContinuousClock.Instant, date: @escaping @Sendable () -> Date
    ) {
        self.variables = variables
        self.home = home.flatMap(Self.absolute)
        self.temporaryFolder = temporaryFolder
        self.currentDirectory = currentDirectory
        self.now = now
        self.date = date
    }

    /// The variable `name`, nil when it is unset or empty (an empty value means "not set" to every reader here).
    public subscript(name: String) -> String? {
        variables[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The same environment with `name` set to `value` (nil: unset).
    public func setting(_ name: String, to value: String?) -> HostEnvironment {
        var changed = self
        changed.variables[name] = value
        return changed
    }

    /// A base folder of the XDG Base Directory specification, by its one rule: the variable when it holds an absolute
    /// path, else its default under the home folder. A relative path is invalid and ignored, as the specification
    /// says. Nil when neither is there.
    public func folder(_ base: XDGFolder) -> String? {
        Self.folder(base, variables: variables, home: home)
    }

    /// `folder(_:)` of an environment that has only `variables` and `home`.
    public static func folder(_ base: XDGFolder, variables: [String: String], home: String?) -> String? {
        variables[base.variable].flatMap { $0.isEmpty ? nil : absolute($0) }
            ?? home.flatMap(absolute).map { $0 + "/" + base.defaultUnderHome }
    }

    /// `path` as an absolute path: itself when it is one, else resolved against the current directory.
    public func absolutePath(_ path: String) -> String {
        path.hasPrefix("/")
            ? path : (currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/") + path
    }

    private static func absolute(_ path: String) -> String? { path.hasPrefix("/") ? path : nil }
}

/// The XDG base folders microapp keeps things in.
public enum XDGFolder: Sendable, CaseIterable {
    /// `$XDG_DATA_HOME`, `~/.local/share`: the SDK `microapp sdk --install` writes, an app's data.
    case data
    /// `$XDG_CACHE_HOME`, `~/.cache`: probe verdicts, swap copies.
    case cache
    /// `$XDG_STATE_HOME`, `~/.local/state`: the folders that have had a lock, what channels were seen at.
    case state
    /// `$XDG_CONFIG_HOME`, `~/.config`: release keys and the keys a person trusts.
    case config

    /// The variable that names the folder.
    public var variable: String {
        switch self {
        case .data: "XDG_DATA_HOME"
        case .cache: "XDG_CACHE_HOME"
        case .state: "XDG_STATE_HOME"
        case .config: "XDG_CONFIG_HOME"
        }
    }

    /// Where the folder is under the home folder when the variable does not name one.
    public var defaultUnderHome: String {
        switch self {
        case .data: ".local/share"
        case .cache: ".cache"
        case .state: ".local/state"
        case .config: ".config"
        }
    }
}
