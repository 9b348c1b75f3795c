import Foundation
import MicroappCore
import MicroappPlatform

/// What a start does with versions still on trial (`CanaryRecord`): the last run ended inside their canary window
/// (an in-process feature that crashes takes the app with it, and the supervisor starts it again), so each goes back
/// to the version before and is marked bad, before anything is loaded. The supervisor turned the crashed library off
/// for this start (`--skip-library`); a library taken back runs again instead, at its earlier version.
enum CanaryRecovery {
    /// Takes back each version on trial in `folders` through `reject` (as the canary would have); the notices to show
    /// and the libraries restored.
    static func takeBack(
        in folders: [String], reject: (_ folder: String, _ trial: CanaryRecord.Trial) -> Problem?
    ) -> (notices: [Notice], restored: Set<String>) {
        var notices: [Notice] = []
        var restored: Set<String> = []
        for folder in folders {
            for trial in CanaryRecord.read(folder).trials.values.sorted(by: { $0.feature < $1.feature }) {
                if let problem = reject(folder, trial) {
                    notices.append(
                        Notice(
                            level: .error, code: "update-reject-failed",
                            message: "\(trial.feature) v\(trial.version) could not be taken back: \(problem.reason)",
                            fix: problem.fix, feature: trial.feature))
                } else {
                    restored.insert(
                        RecordedState.canonicalPath((folder as NSString).appendingPathComponent(trial.library)))
                    notices.append(
                        Canary<ContinuousClock.Instant>.Rollback(
                            feature: trial.feature, bad: trial.version, restored: trial.previous,
                            reason: "the app ended (an in-process crash) while it was on trial"
                        ).notice)
                }
                CanaryRecord.end(trial.feature, in: folder)
            }
        }
        return (notices, restored)
    }
}
