import MicroappSDK

/// A Root whose answers arrive later (an isolated feature's, from its child process): while a request is in
/// flight the runtime counts the app as unsettled, so line front ends hold the next event until the answer came.
@MainActor
public protocol SettlingRoot: Root {
    /// What the Root still waits for (`Characters is answering an action`), nil when nothing is in flight.
    var unsettledReason: String? { get }
    /// Ends what runs this Root (its child process) once another version took its place or a swap gave it up.
    func retire()
    /// Waits until every request in flight was answered (or the Root ended): its snapshot then holds their effects.
    func settled() async
    /// Waits until a new Root answered its start, the state it was given and the screen at `location` (when given):
    /// nil then, or why not.
    func ready(showing location: Location?) async -> Problem?
    /// Waits until the feature answered its start (started or refused) or ended.
    func started() async
}

extension SettlingRoot {
    /// A Root whose start is answered when it is made.
    public func started() async {}
}

/// A factory whose start needs blocking work first (forking a child process): `prepareStart` does it off the main
/// actor, and the next `start(in:)` uses what it made instead of blocking.
@MainActor
public protocol PreparingFactory: FeatureFactory {
    /// Does the blocking part of the next start; throws when it cannot be done (the start would fail).
    func prepareStart() async throws
    /// Ends what `prepareStart` made when the start it was for will not happen.
    func discardPreparedStart()
}
