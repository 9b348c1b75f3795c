import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// What a start does with versions still on trial (`CanaryRecord`): the last run ended inside their canary window.
/// A version whose library the supervisor saw crash the app (it names it with `--skip-library` when it starts the app
/// again) failed its trial: it goes back to the version before and is marked bad, before anything is loaded, and its
/// library runs again at that earlier version. A run that ended any other way inside a window (the person closed the
/// terminal, a SIGTERM, the machine went down) is not held against the version on trial: it keeps running, and only
/// its record is cleared.
enum CanaryRecovery {
    /// Takes back each version on trial in `folders` whose library is among `crashed` (canonical paths the
    /// supervisor skipped) through `reject`, as the canary would have; clears the other trials. The notices to show
    /// and the libraries restored.
    static func takeBack(
        in folders: [String], crashed: Set<String>, reject: (_ folder: String, _ trial: CanaryRecord.Trial) -> Problem?
    ) -> (notices: [Notice], restored: Set<String>) {
        var notices: [Notice] = []
        var restored: Set<String> = []
        let crashed = Set(crashed.map(RecordedState.canonicalPath))
        for folder in folders {
            for trial in CanaryRecord.read(folder).trials.values.sorted(by: { $0.feature < $1.feature }) {
                let library = RecordedState.canonicalPath((folder as NSString).appendingPathComponent(trial.library))
                if !crashed.contains(library) {
                    notices.append(
                        Notice(
                            level: .info, code: .canaryCutShort,
                            message:
                                "\(trial.feature) v\(trial.version)'s trial ended with the app, not by a crash of it: "
                                + "v\(trial.version) keeps running", feature: trial.feature))
                } else if let problem = reject(folder, trial) {
                    notices.append(
                        Notice(
                            level: .error, code: .updateRejectFailed,
                            message: "\(trial.feature) v\(trial.version) could not be taken back: \(problem.reason)",
                            fix: problem.fix, feature: trial.feature))
                } else {
                    restored.insert(library)
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
