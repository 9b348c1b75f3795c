import Foundation
import MicroappDigest
import MicroappSDK
import MicroappShipping

/// A publisher with a fresh key, a person who trusts it, and a channel held in memory (path → bytes), published to
/// as `microapp publish` will: real Ed25519 signatures, real SHA-256.
struct ChannelFixture {
    let key = Ed25519.PrivateKey.generate()!
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var files: [String: Data] = [:]
    var index: ChannelIndex?

    /// The feature ids the person trusts the key to sign.
    var scope = ["characters", "search", "settings"]

    var trust: TrustList { TrustList().trusting(KeyText.text(of: key.publicKey), as: "team", for: scope)! }

    /// The key as a verified signature names it.
    var signer: Signer { Signer(name: "team", key: KeyText.text(of: key.publicKey), features: scope) }

    func verification(seen: SeenVersions = SeenVersions(), sdk: SDKVersion = SDKVersion(major: 1, minor: 2))
        -> ChannelVerification
    {
        ChannelVerification(channel: "https://example.test/stable", trust: trust, seen: seen, sdk: sdk)
    }

    static func library(_ feature: String, _ version: Int) -> Data { Data("ELF \(feature) v\(version)".utf8) }

    static func manifest(_ feature: String, _ version: Int) -> Data {
        Data(#"{"id":"\#(feature)","version":\#(version)}"#.utf8)
    }

    func release(_ feature: String, _ version: Int, sdk: SDKVersion = SDKVersion(major: 1, minor: 0)) -> SignedRelease {
        SignedRelease.make(
            library: Self.library(feature, version), libraryName: "lib\(feature).so",
            manifest: Self.manifest(feature, version), feature: feature, version: version, sdk: sdk, key: key, now: now)
    }

    /// Publishes a release of `feature` at `version` and writes its files and the new index into `files`.
    @discardableResult
    mutating func publish(
        _ feature: String, _ version: Int, sdk: SDKVersion = SDKVersion(major: 1, minor: 0),
        lifetime: TimeInterval = ChannelPublication.defaultLifetime, channel: String? = nil
    ) throws -> ChannelPublication {
        let release = release(feature, version, sdk: sdk)
        let library = Self.library(feature, version)
        let manifest = Self.manifest(feature, version)
        let publication = try ChannelPublication.publish(
            release, library: library, manifest: manifest, onto: index, key: key, now: now, lifetime: lifetime,
            channel: channel
        ).get()
        let folder = publication.folder + "/"
        files[folder + "lib\(feature).so"] = library
        files[folder + ReleaseLayout.manifest] = manifest
        files[folder + ReleaseLayout.record] = release.recordBytes
        files[folder + ReleaseLayout.signature] = release.signature.encoded()
        files[ChannelLayout.index] = publication.indexBytes
        files[ChannelLayout.signature] = publication.signature.encoded()
        index = publication.index
        return publication
    }
}

extension Data {
    /// The bytes with the one at `offset` (from the start; negative from the end) flipped.
    func flipping(at offset: Int) -> Data {
        var copy = self
        let position = offset >= 0 ? offset : count + offset
        copy[copy.startIndex + position] ^= 0x01
        return copy
    }
}
