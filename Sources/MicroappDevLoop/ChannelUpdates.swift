import MicroappCore
import MicroappPlatform

/// What a running app asks of the updater (`run --channel`): one check of the channel, and taking back a release
/// that failed its canary. Each call blocks (downloads, hashes, files): `ChannelWatch` makes them off the main actor.
public protocol ChannelUpdates: Sendable {
    /// The channel in the person's words (its URL or folder), for notices.
    var channel: String { get }

    /// Fetches and verifies the channel's index and installs, beside the running one in its plugin folder and pinned
    /// in the lock, the newest acceptable release of each feature newer than `running` (feature id → version).
    func check(running: [String: Int]) -> ChannelCheck

    /// Takes back release `bad` of `feature` after its canary failed: its plugin folder and lock back to `restored`,
    /// and `bad` marked never to be installed again (a later version is). Nil when done, else why not.
    func reject(_ feature: String, bad: Int, restored: Int) -> Problem?

    /// How long one check may take in all (`CheckLimits.deadline`).
    var deadline: Duration { get }
}

extension ChannelUpdates {
    /// The standard deadline of a check.
    public var deadline: Duration { CheckLimits.standard.deadline }
}

/// What one check of a channel did.
public struct ChannelCheck: Sendable, Equatable {
    /// A release installed into a plugin folder, ready to swap in.
    public struct Installed: Sendable, Equatable {
        /// The feature's id.
        public var feature: String
        /// Its version.
        public var version: Int
        /// The library's path in the plugin folder (`lib<Feature>.so`, now pinned in the lock).
        public var library: String

        /// A release of `feature` at `version`, installed at `library`.
        public init(feature: String, version: Int, library: String) {
            self.feature = feature
            self.version = version
            self.library = library
        }
    }

    /// What was installed, in order.
    public var installed: [Installed]
    /// What was refused, each with what, why and the fix (an index that does not verify, a release for an SDK this
    /// host does not speak, a file whose bytes differ from the index): a refusal changes nothing.
    public var refused: [Problem]
    /// Newer versions passed over because they are marked bad (a canary rolled them back): nothing to do.
    public var skipped: [Problem]
    /// Why the check could not run at all (no plugin folder, another update of it under way): nothing changed.
    public var failure: Problem?
    /// What changed in the person's trust list: key rotations the channel announced and the check followed.
    public var trusted: [String]

    /// A check's outcome.
    public init(
        installed: [Installed] = [], refused: [Problem] = [], skipped: [Problem] = [], failure: Problem? = nil,
        trusted: [String] = []
    ) {
        self.installed = installed
        self.refused = refused
        self.skipped = skipped
        self.failure = failure
        self.trusted = trusted
    }
}
