import Foundation
import MicroappCore
import MicroappPlatform

extension PluginVersions {
    /// Why `feature`'s kept `record` may not run again under `trust`, nil when it may. A version from a channel runs
    /// again only while the signed record kept beside it still verifies against the person's trust list: once its
    /// key is removed (`microapp trust --remove`), nothing that key alone signed is made running again — not by
    /// `rollback`, not by a canary's. A version kept from the folder was never signed; the lock vouches for it.
    public func distrust(of record: InstalledVersion, under trust: TrustList) -> Problem? {
        guard record.channel != nil else { return nil }
        let folder = folder(record.feature, record.version)
        let subject = "\(record.feature) \(record.version)"
        let fix =
            "run another kept version (`microapp versions \(record.feature)` lists them); if the key was removed by "
            + "mistake, `microapp trust KEY --name TEAM` again"
        guard let recordBytes = Files.contents(folder + "/" + ReleaseLayout.record),
            let signature = Files.contents(folder + "/" + ReleaseLayout.signature)
        else {
            return Problem(
                code: .versionUntrusted, subject: subject,
                reason: "its signed release record is missing from \(folder)", fix: fix)
        }
        switch SignedRelease.verify(
            recordBytes: recordBytes, signatureBytes: signature, subject: folder + "/" + ReleaseLayout.record,
            trust: trust)
        {
        case .success: return nil
        case .failure(let problem):
            return Problem(
                code: .versionUntrusted, subject: subject,
                reason: "its release record no longer verifies: \(problem.reason)", fix: fix)
        }
    }
}
