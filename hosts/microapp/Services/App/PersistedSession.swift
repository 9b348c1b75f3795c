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

    /// Shares `initial` (what `load` read from `file`) and starts saving changes to `file`; `report` hears of a
    /// failed save.
    public init(file: SessionFile, initial: Session?, report: @escaping (StorageError) -> Void) {
        self.file = file
        property = ObservableProperty(initial)
        observation = property.observe { session in
            do throws(StorageError) {
                try file.save(session)
            } catch {
                report(error)
            }
        }
    }

    /// The session saved in `file`, its account checked in `accounts` (file and database reads: call it off the
    /// main actor); nil, reported, when the file is damaged or its account no longer exists.
    public nonisolated static func load(
        from file: SessionFile, accounts: AccountStore, report: (StorageError) -> Void
    ) throws(StorageError) -> Session? {
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
        return initial
    }
}
