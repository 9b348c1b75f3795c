import MicroappCore

/// What one update from a channel did to a plugin folder: the versions it made the running ones, what it refused
/// (with what, why and the fix), and the newer versions it passed over because they are marked bad.
public struct UpdateReport: Sendable, Equatable {
    /// One feature moved to a new version.
    public struct Installed: Sendable, Equatable {
        /// The feature's id.
        public var feature: String
        /// The version that ran before (nil when it was not known).
        public var from: Int?
        /// The version that runs now.
        public var to: Int
        /// The running library, `<plugins>/lib<F>.so`.
        public var library: String
        /// The previous version's library, kept in `.versions` for a rollback (nil when none was kept).
        public var previous: String?

        /// A feature moved from `from` to `to`.
        public init(feature: String, from: Int?, to: Int, library: String, previous: String?) {
            self.feature = feature
            self.from = from
            self.to = to
            self.library = library
            self.previous = previous
        }
    }

    /// The features moved to a new version, by feature id.
    public var installed: [Installed] = []
    /// What was refused: the channel's index, a release, a download. A release refused changes nothing.
    public var refused: [Problem] = []
    /// Newer versions not installed because the folder marks them bad (`marked-bad`).
    public var skipped: [Problem] = []
    /// What changed in the person's trust list: key rotations the channel announced and the update followed.
    public var notes: [String] = []

    /// An empty report.
    public init() {}
}
