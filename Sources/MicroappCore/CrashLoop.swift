/// How an app process ended, as its supervisor tells the ways apart (the platform reads them from the kernel).
public enum AppEnding: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// A hang-up (its terminal closed) ended it: on purpose, not a crash.
    case hungUp
    /// A termination request (`kill`) ended it: on purpose, not a crash.
    case terminated
    /// Ctrl-C (SIGINT) ended it, where no front end took the key over (the browser front end): on purpose.
    case interrupted
    /// Whoever read its output went away (SIGPIPE): as any program in a pipe ends.
    case outputClosed
    /// Another signal ended it (or it was killed at a time limit): `signal` and its name (`Segmentation fault`).
    case crashed(signal: Int32, name: String)
}

/// How the supervisor itself ends.
public enum SupervisorExit: Sendable, Equatable {
    /// With the app process's own exit status.
    case status(Int32)
    /// As the shell reports a program a hang-up ended (129).
    case hungUp
    /// As the shell reports a program a termination request ended (143).
    case terminated
    /// As the shell reports a program ctrl-c ended (130).
    case interrupted
    /// As the shell reports a program whose reader went away (141).
    case outputClosed
    /// A plugin crashed and could not be isolated (3).
    case crashed
}

/// A crash the supervisor traced to a plugin: the innermost frame of the report in a library the app loaded.
public struct PluginCrash: Sendable, Equatable {
    /// The feature whose library crashed.
    public var feature: String
    /// The library to turn off: the one the feature started from (for a hot-swapped copy, not the copy).
    public var library: String
    /// The file the crash report names (the mapped copy).
    public var image: String
    /// Whether `image` is a hot-swapped build's copy of `library`.
    public var swapped: Bool

    /// A crash in `image`, of `feature` started from `library`.
    public init(feature: String, library: String, image: String, swapped: Bool) {
        self.feature = feature
        self.library = library
        self.image = image
        self.swapped = swapped
    }
}

/// The supervisor's decisions, kept apart from its processes, files and signals: which endings are crashes, which
/// plugin to turn off, when crashes come too fast to go on (`limit` within `window`), and the command line of the
/// next start. Time is a value handed in (`Instant`), so a test drives it with a clock of its own.
public struct CrashLoop<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What the supervisor does after an app process ended.
    public enum Verdict: Sendable, Equatable {
        /// Ends with `exit`; `restoresTerminal` when the app could not put the terminal back itself.
        case end(SupervisorExit, restoresTerminal: Bool)
        /// The app crashed outside any plugin (or in one already turned off): it cannot be isolated.
        case notIsolatable
        /// `limit` plugin crashes within `window`: stops instead of looping; each crash's line.
        case giveUp([String])
        /// Starts the app again without `skipping`, telling `notice` and opening `route` (empty: home).
        case restart(skipping: String, notice: String, route: String)
    }

    /// Crashes this close together mean the app cannot be kept up.
    public let window: Duration
    /// How many crashes within `window` stop the supervisor.
    public let limit: Int
    /// The libraries turned off so far, in order.
    public private(set) var skipped: [String] = []
    /// The recent crashes: when, and a line naming the feature, library and headline.
    public private(set) var crashes: [(at: Instant, report: String)] = []
    /// The words the next start adds (the crash notice and the route to reopen).
    public private(set) var restartWords: [String] = []

    /// A supervisor that gives up after `limit` crashes within `window` (3 in 10 s by default).
    public init(window: Duration = .seconds(10), limit: Int = 3) {
        self.window = window
        self.limit = limit
    }

    /// The app process's command line for the next start: `words` with the supervisor's own options (its state file,
    /// the libraries turned off, the restart's notice and route) before a `--` the person wrote, where they are still
    /// options.
    public func arguments(for words: [String], stateFile: String) -> [String] {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        return Array(words[..<end]) + ["--supervised", "--state-file", stateFile]
            + skipped.flatMap { ["--skip-library", $0] } + restartWords + Array(words[end...])
    }

    /// What an ending that is not a crash means; nil for a crash (`record` decides what follows).
    public func verdict(for ending: AppEnding) -> Verdict? {
        switch ending {
        case .exited(let status): .end(.status(status), restoresTerminal: false)
        case .hungUp: .end(.hungUp, restoresTerminal: true)
        case .terminated: .end(.terminated, restoresTerminal: true)
        case .interrupted: .end(.interrupted, restoresTerminal: true)
        case .outputClosed: .end(.outputClosed, restoresTerminal: false)
        case .crashed: nil
        }
    }

    /// Records a crash at `now` (`crash`: the plugin it was traced to, nil when none; `headline`: the report's first
    /// line) and decides: not isolatable, give up, or restart without that plugin, back on `route` (the screen shown,
    /// recorded by the app) unless that screen was the crashed feature's (`shownFeature`): then home.
    public mutating func record(
        _ crash: PluginCrash?, headline: String, at now: Instant, shownFeature: String?, route: String?
    ) -> Verdict {
        crashes.removeAll { $0.at.duration(to: now) > window }
        guard let crash, !skipped.contains(crash.library) else { return .notIsolatable }
        crashes.append((now, "\(crash.feature) in \(crash.image): \(headline)"))
        if crashes.count >= limit { return .giveUp(crashes.map(\.report)) }
        skipped.append(crash.library)
        let place = crash.swapped ? "\(crash.image), a hot-swapped copy of \(crash.library)" : crash.library
        let notice =
            "\(crash.feature) crashed (\(headline)) in \(place) and was turned off; the app restarted without it"
        let reopen = shownFeature == crash.feature ? "" : route ?? ""
        restartWords = ["--crash-notice=\(notice)", "--open=\(reopen)"]
        return .restart(skipping: crash.library, notice: notice, route: reopen)
    }
}
