import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// `run --channel URL`: the updater of `microapp update` as the running app's `ChannelUpdates`. Each check updates
/// the plugin folders the running features were loaded from (an `Updater` per folder: verified, kept in `.versions`,
/// one rename, pinned in the lock); a rejection is the folder's rollback to the version restored, which marks the
/// version it leaves bad.
struct ChannelUpdater: ChannelUpdates {
    let source: ChannelSource
    /// Feature id → the plugin folder its library was loaded from.
    let folders: [String: String]
    let environment: HostEnvironment
    let screening: PluginScreening

    /// Follows the channel `text` (a folder or an http(s) URL) for the features of `plugins`.
    init(_ text: String, plugins: [any LoadedPlugin], environment: HostEnvironment, screening: PluginScreening) {
        source = ChannelSource(text, currentDirectory: environment.currentDirectory)
        self.environment = environment
        self.screening = screening
        folders = Dictionary(
            plugins.map { ($0.manifest.id, FileFacts.canonicalPath(($0.path as NSString).deletingLastPathComponent)) },
            uniquingKeysWith: { first, _ in first })
    }

    var channel: String { source.name }

    var deadline: Duration { CheckLimits(environment: environment).deadline }

    func check(running: [String: Int]) -> ChannelCheck {
        var check = ChannelCheck()
        // One deadline for the whole check, however many folders it updates.
        let budget = CheckBudget(CheckLimits(environment: environment), clock: environment.now)
        for folder in Set(folders.values).sorted() {
            let report = Updater(channel: source, plugins: folder, environment: environment, screening: screening)
                .update(now: environment.date(), within: budget)
            // Only the features this app runs from that folder are swapped in; the others run from the next start.
            check.installed += report.installed.filter { folders[$0.feature] == folder }.map {
                ChannelCheck.Installed(feature: $0.feature, version: $0.to, library: $0.library)
            }
            check.refused += report.refused
            check.skipped += report.skipped
            check.trusted += report.notes
        }
        return check
    }

    func reject(_ feature: String, bad: Int, restored: Int) -> Problem? {
        guard let folder = folders[feature] else { return nil }
        return Self.reject(feature, bad: bad, restored: restored, in: folder, environment: environment)
    }

    /// Puts `feature` in `folder` back to its kept version `restored`, marking the version it leaves (`bad`) bad;
    /// never to a version whose key the person's trust list (from `environment`) no longer holds.
    static func reject(
        _ feature: String, bad: Int, restored: Int, in folder: String, environment: HostEnvironment
    ) -> Problem? {
        let trust: TrustList
        switch ReleaseStore(folders: ReleaseFolders(environment: environment)).trustList() {
        case .success(let list): trust = list
        case .failure(let problem): return problem
        }
        switch PluginVersions(plugins: folder).rollback(
            feature, to: restored, reason: "v\(bad) failed its canary window: rolled back to v\(restored)",
            trust: trust, now: environment.date())
        {
        case .success: return nil
        case .failure(let problem): return problem
        }
    }
}
