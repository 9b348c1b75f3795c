import Foundation
import MicroappPlatform

/// The versions on trial in a plugin folder (`canary.json` beside `plugins.lock`), written when a live update goes
/// on trial and cleared when it passes, is rolled back or the app quits. An in-process feature that crashes takes the
/// app with it, before the canary can act: a record still there when an app starts says that the last run ended
/// inside a window, so the start takes those versions back before loading anything (`run` does).
public struct CanaryRecord: Codable, Sendable, Equatable {
    /// One version on trial.
    public struct Trial: Codable, Sendable, Equatable {
        /// The feature's id.
        public var feature: String
        /// The version on trial.
        public var version: Int
        /// The version it replaced.
        public var previous: Int
        /// Its library's file name in the folder (`libTally.so`).
        public var library: String

        /// A trial of `version` of `feature` (library `library`), replacing `previous`.
        public init(feature: String, version: Int, previous: Int, library: String) {
            self.feature = feature
            self.version = version
            self.previous = previous
            self.library = library
        }
    }

    /// The record's file name in a plugin folder.
    public static let fileName = "canary.json"

    /// The trials, by feature id.
    public var trials: [String: Trial] = [:]

    /// The record of `folder`; empty when it has none (or an unreadable one: nothing to take back).
    public static func read(_ folder: String) -> CanaryRecord {
        guard let bytes = Files.contents(path(in: folder)),
            let record = try? JSONDecoder().decode(CanaryRecord.self, from: bytes)
        else { return CanaryRecord() }
        return record
    }

    /// Adds `trial` to the record of `folder` (replacing one of the same feature).
    public static func begin(_ trial: Trial, in folder: String) {
        var record = read(folder)
        record.trials[trial.feature] = trial
        record.save(in: folder)
    }

    /// Removes the trial of `feature` from the record of `folder`.
    public static func end(_ feature: String, in folder: String) {
        var record = read(folder)
        guard record.trials.removeValue(forKey: feature) != nil else { return }
        record.save(in: folder)
    }

    /// Writes the record atomically, or removes the file when nothing is on trial.
    private func save(in folder: String) {
        let file = Self.path(in: folder)
        guard !trials.isEmpty else {
            try? Files.remove(file)
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try? Files.replace(file, with: encoder.encode(self))
    }

    private static func path(in folder: String) -> String { (folder as NSString).appendingPathComponent(fileName) }
}
