import Foundation

/// The live object of a feature: it draws its screens and takes people's actions. One per feature per run.
///
/// The host asks it for the `Screen` of the location on top at every redraw and hands it each action taken
/// there; work that finishes later calls the context's `invalidate()` so the host draws again. Across a hot
/// swap, `snapshot()` and `restore(from:)` carry its state as bytes.
///
/// ```swift
/// @MainActor final class ProfileRoot: Root {
///     private var name = "World"
///
///     func screen(at location: Location) -> Screen {
///         Screen(
///             title: "Profile",
///             content: [.text(Text("Hello, \(name)!")), .field(TextField(id: "name", label: "Name", text: name))])
///     }
///
///     func handle(_ action: Action, at location: Location) {
///         if case .input(id: "name", let text) = action { name = text }
///     }
/// }
/// ```
@MainActor
public protocol Root: AnyObject {
    /// Called when `location` comes on top of the back stack (opened, or uncovered by back): start loading here.
    func willShow(_ location: Location)
    /// The screen for `location`, one of this feature's routes. Called at every redraw: keep it cheap.
    func screen(at location: Location) -> Screen
    /// Handles a tap, edit or selection made on the screen at `location`.
    func handle(_ action: Action, at location: Location)
    /// The state worth keeping across a hot swap, as bytes (nil: nothing to keep).
    func snapshot() -> Data?
    /// Takes back state written by `snapshot()`, possibly by an older version; throws to start fresh instead.
    func restore(from snapshot: Data) throws
}

extension Root {
    /// By default nothing happens when a screen comes on top.
    public func willShow(_ location: Location) {}
    /// By default a feature keeps nothing across a swap.
    public func snapshot() -> Data? { nil }
    /// By default there is nothing to restore.
    public func restore(from snapshot: Data) throws {}
}
