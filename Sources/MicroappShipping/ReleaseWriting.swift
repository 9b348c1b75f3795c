import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappSDK

extension ChannelFolder {
    /// Makes the release of the private copy `library` (the bytes the sandboxed probe examined, released as
    /// `libraryName`) with `manifest`, as feature `feature` at `version` built for `sdk`, signed with `key` at `now`,
    /// and writes it as the new folder `folder` (refused when it exists). The copy's bytes are checked against the
    /// digest taken when it was made: what is signed is what was probed.
    public static func writeRelease(
        of library: LibraryCopy, as libraryName: String, manifest: Data, feature: String, version: Int,
        sdk: SDKVersion, key: Ed25519.PrivateKey, now: Date, to folder: String
    ) -> Result<SignedRelease, Problem> {
        guard let bytes = Files.contents(library.path),
            SHA256.hex(of: bytes) == library.sha256
        else {
            return .failure(
                Problem(
                    code: .releaseLibraryChanged, subject: library.original,
                    reason: "its private copy could not be read back as it was examined",
                    fix: "make the release again; check that the temporary folder is not shared or full"))
        }
        let release = SignedRelease.make(
            library: bytes, libraryName: libraryName, manifest: manifest, feature: feature, version: version,
            sdk: sdk, key: key, now: now)
        if let problem = writeRelease(release, library: bytes, manifest: manifest, to: folder) {
            return .failure(problem)
        }
        return .success(release)
    }
}
