import Foundation
import MicroappSDK

/// One message of the host↔child feature protocol (an isolated feature runs in `microapp feature-host`). Each
/// crosses the socket as a frame: a 4-byte big-endian length, then the message as JSON (`FeatureWire`). The
/// values are the Codable ones the SDK already has; state, snapshots and service requests travel as bytes.
public enum FeatureMessage: Codable, Sendable, Equatable {
    // MARK: Host → child

    /// The host's first message: the protocol version it speaks.
    case hello(version: Int)
    /// Start the feature: the JSON value of each state requirement the host grants (keys it grants read-write in
    /// `writable`), and the service keys the host answers (the others the feature may provide itself).
    case start(state: [String: Data], writable: [String], services: [String])
    /// `location` came on top of the back stack.
    case willShow(Location)
    /// Send the screen for `location`.
    case screen(Location)
    /// A person acted on the screen at `location`.
    case action(WireAction, at: Location)
    /// Shared state changed in the host.
    case stateChanged(key: String, value: Data)
    /// Take back a snapshot of an earlier version (a hot swap).
    case restore(Data)

    // MARK: Child → host

    /// The child's first message: its protocol version and the manifest of the library it registered, as JSON
    /// (the host decodes it with `ManifestCoding`, bounds and all).
    case welcome(version: Int, manifest: String)
    /// The library could not be loaded or registered, or (solo) cannot run on its own mocks; the child exits after
    /// this. A refusal about the mocks names its kind (`missing-requirement`, `mock-choice`) and the fix.
    case refused(String, fix: String? = nil, code: String? = nil)
    /// The feature started (its Root and provisions are made).
    case started
    /// The feature refused to start.
    case startFailed(String)
    /// The screen for `location`: an answer to a request, or pushed after the feature's `invalidate()`.
    case screenUpdate(Location, Screen)
    /// The work a request caused is done (every screen it changed has been sent): the host may settle.
    case done
    /// The feature asks the host's back stack to move.
    case navigate(WireNavigation)
    /// Shared state written by its one owner.
    case stateWrite(key: String, value: Data)
    /// The feature's snapshot changed (nil: nothing to keep).
    case snapshot(Data?)
    /// The result of a `restore`: nil when it was taken back, else why not.
    case restored(failure: String?)
    /// A line for the host's log.
    case log(String)

    // MARK: Both ways

    /// Call the service `key` with a request (the host calls a service the feature provides; the feature calls a
    /// requirement). `id` is the caller's own and comes back in the reply.
    case serviceCall(id: UInt64, key: String, request: Data)
    /// The answer to a `serviceCall`: the response, or the error the service threw.
    case serviceReply(id: UInt64, response: Data?, error: ServiceError?)

    /// True for the messages only the host sends.
    public var isFromHost: Bool {
        switch self {
        case .hello, .start, .willShow, .screen, .action, .stateChanged, .restore: true
        case .serviceCall, .serviceReply: true
        default: false
        }
    }

    /// True for the messages only a child sends.
    public var isFromChild: Bool {
        switch self {
        case .hello, .start, .willShow, .screen, .action, .stateChanged, .restore: false
        default: true
        }
    }
}

/// An `Action` as it crosses the socket.
public enum WireAction: Codable, Sendable, Equatable {
    /// A button was pressed.
    case tap(id: String)
    /// A text field now holds `text`.
    case input(id: String, text: String)
    /// Row `index` of a list was chosen.
    case select(id: String, index: Int)

    /// The wire form of `action`, nil for a kind of action this host does not know.
    public init?(_ action: Action) {
        switch action {
        case .tap(let id): self = .tap(id: id)
        case .input(let id, let text): self = .input(id: id, text: text)
        case .select(let id, let index): self = .select(id: id, index: index)
        @unknown default: return nil
        }
    }

    /// The action it stands for.
    public var action: Action {
        switch self {
        case .tap(let id): .tap(id: id)
        case .input(let id, let text): .input(id: id, text: text)
        case .select(let id, let index): .select(id: id, index: index)
        }
    }
}

/// A feature's request to move the host's back stack.
public enum WireNavigation: Codable, Sendable, Equatable {
    /// Push `url`.
    case push(String)
    /// Go back one screen.
    case pop
    /// Go back to the feature's first screen.
    case popToRoot
    /// Open `url` across features.
    case open(String)
}
