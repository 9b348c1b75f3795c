/// A rebuild that only counts when it was made of the newest bytes. The digests of the sources are read before and
/// after each build; when they differ (a save while it ran), its result is dropped, unannounced, and the build runs
/// again on what is there now, so a build of older bytes never lands after a newer save and saves that come
/// quickly one after the other end in one build of the last.
enum NewestBuild {
    /// What the last build came to, the digests of the sources it was made of, and how many builds were dropped
    /// because their sources changed while they ran.
    struct Outcome<Result: Sendable>: Sendable {
        var result: Result
        var digests: [String: String]
        var superseded: Int
    }

    /// Runs `build` until the sources' `digests` are the same after a build as before it.
    static func run<Result: Sendable>(digests: () -> [String: String], build: () -> Result) -> Outcome<Result> {
        var superseded = 0
        var before = digests()
        while true {
            let result = build()
            let after = digests()
            if after == before { return Outcome(result: result, digests: after, superseded: superseded) }
            superseded += 1
            before = after
        }
    }
}
