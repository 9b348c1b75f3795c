import Foundation

/// What a person's host has seen from each channel, so that versions never go back: the highest index version, and
/// the highest release of each feature it accepted. Kept in the person's state folder (`channels.json`), keyed by
/// the channel as the person names it (its URL or folder) and by what its signed index names it
/// (`VerifiedIndex.recordNames`: the signer's key and the channel's id).
public struct SeenVersions: Codable, Sendable, Equatable {
    /// One channel's record.
    public struct Channel: Codable, Sendable, Equatable {
        /// The highest index version verified.
        public var index: Int
        /// Feature id → the highest release version accepted.
        public var features: [String: Int]

        /// A record of `index` and `features`.
        public init(index: Int = 0, features: [String: Int] = [:]) {
            self.index = index
            self.features = features
        }
    }

    /// Channel → its record.
    public var channels: [String: Channel]

    /// A record of `channels`.
    public init(channels: [String: Channel] = [:]) { self.channels = channels }

    /// The highest index version seen from `channel` (0 when none).
    public func index(of channel: String) -> Int { channels[channel]?.index ?? 0 }

    /// The highest release of `feature` accepted from `channel`; nil when none.
    public func release(of feature: String, from channel: String) -> Int? { channels[channel]?.features[feature] }

    /// The record with `index` verified from `channel` (the highest stays).
    public func seeing(index version: Int, from channel: String) -> SeenVersions {
        var seen = self
        seen.channels[channel, default: Channel()].index = max(index(of: channel), version)
        return seen
    }

    /// The record with release `version` of `feature` accepted from `channel` (the highest stays).
    public func accepting(_ feature: String, version: Int, from channel: String) -> SeenVersions {
        var seen = self
        seen.channels[channel, default: Channel()].features[feature] = max(
            release(of: feature, from: channel) ?? version, version)
        return seen
    }

    /// The highest index version seen under any of `names` (0 when none).
    public func index(ofAny names: [String]) -> Int { names.map(index(of:)).max() ?? 0 }

    /// The highest release of `feature` accepted under any of `names`; nil when none.
    public func release(of feature: String, fromAny names: [String]) -> Int? {
        names.compactMap { release(of: feature, from: $0) }.max()
    }

    /// The record's file bytes (canonical JSON).
    public func encoded() -> Data { (try? CanonicalJSON.encode(self)) ?? Data() }
}
