import MicroappSDK

/// A Root whose answers arrive later (an isolated feature's, from its child process): while a request is in
/// flight the runtime counts the app as unsettled, so line front ends hold the next event until the answer came.
@MainActor
public protocol SettlingRoot: Root {
    /// What the Root still waits for (`Characters is answering an action`), nil when nothing is in flight.
    var unsettledReason: String? { get }
    /// Ends what runs this Root (its child process) once another version took its place or a swap gave it up.
    func retire()
}
