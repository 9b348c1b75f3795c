import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform

/// `run --channel URL`: the updater of `microapp update` as the running app's `ChannelUpdates`, installing into the
/// plugin folder each running feature was loaded from.
struct ChannelUpdater: ChannelUpdates {
    let channel: String
    /// Feature id → the plugin folder its library was loaded from.
    let folders: [String: String]
    let environment: HostEnvironment

    /// Follows `channel` for the features of `plugins`.
    init(_ channel: String, plugins: [any LoadedPlugin], environment: HostEnvironment) {
        self.channel = channel
        self.environment = environment
        folders = Dictionary(
            plugins.map { ($0.manifest.id, ($0.path as NSString).deletingLastPathComponent) },
            uniquingKeysWith: { first, _ in first })
    }

    func check(running: [String: Int]) -> ChannelCheck {
        ChannelCheck(
            failure: Problem(
                code: "no-updater", subject: channel, reason: "this build has no updater yet",
                fix: "build a version with `microapp update`"))
    }

    func reject(_ feature: String, bad: Int, restored: Int) -> Problem? {
        guard let folder = folders[feature] else { return nil }
        return Self.reject(feature, bad: bad, restored: restored, in: folder)
    }

    /// Puts `feature` in `folder` back to `restored` and marks `bad` never to be installed again.
    static func reject(_ feature: String, bad: Int, restored: Int, in folder: String) -> Problem? {
        nil
    }
}
