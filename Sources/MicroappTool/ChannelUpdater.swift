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

    init(_ channel: String, plugins: [any LoadedPlugin], arguments: Arguments) {
        self.channel = channel
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

    func reject(_ feature: String, bad: Int, restored: Int) -> Problem? { nil }
}
