import MicroappSDK

/// The shared session, loaded from its file at start and saved on every change: a restart keeps people
/// signed in. A damaged file, or one naming an account that no longer exists, starts signed out and is
/// reported; a failed save is reported and the app goes on.
@MainActor
public final class PersistedSession {
    /// The session features share (the host owns it read-write).
    public let property: ObservableProperty<Session?>
    /// The file it is kept in.
    public let file: SessionFile
    private var observation: Observation?

    /// Loads the session from `file`, checking its account in `accounts`, and starts saving changes;
    /// `report` hears of every problem (a damaged file, a failed save).
    public init(
        file: SessionFile, accounts: AccountStore, report: @escaping (StorageError) -> Void
    ) throws(StorageError) {
        self.file = file
        var initial: Session?
        switch file.load() {
        case .signedOut: initial = nil
        case .unreadable(let problem): report(problem)
        case .signedIn(let saved):
            initial = try accounts.session(accountID: saved.accountID)
            if initial == nil {
                report(
                    StorageError(
                        kind: .corrupt, file: file.path, reason: "the saved session's account no longer exists",
                        detail: "account \(saved.accountID) (\(saved.email))", fix: "sign in again"))
                try? file.save(nil)
            }
        }
        property = ObservableProperty(initial)
        observation = property.observe { session in
            do throws(StorageError) {
                try file.save(session)
            } catch {
                report(error)
            }
        }
    }
}
