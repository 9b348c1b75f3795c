import MicroappCore

/// What a verified index offers a host: for each installed feature, the newest release it may take, and why the
/// newer ones it may not take are refused (an SDK it does not speak, a rollback), so an updater installs the one and
/// tells the person about the others.
public struct UpdateChoice: Sendable, Equatable {
    /// Feature id → the release to install.
    public var updates: [String: ChannelIndex.Entry]
    /// Why releases newer than the installed ones were passed over, by feature and version.
    public var refused: [Problem]
}

extension ChannelVerification {
    /// For each feature in `installed` (id → version running), the newest release in `index` that `checkRelease`
    /// accepts; features the index does not list, and releases not newer than installed, are left out silently.
    /// The newer releases of a feature `signer` (who signed the index) may not sign are refused as one `key-scope`
    /// problem, before anything of them is downloaded.
    public func updates(in index: ChannelIndex, installed: [String: Int], signedBy signer: Signer) -> UpdateChoice {
        var choice = UpdateChoice(updates: [:], refused: [])
        for feature in installed.keys.sorted() {
            let newer = (index.features[feature] ?? []).filter { $0.version > installed[feature]! }
            if let newest = newer.map(\.version).max(),
                let problem = signer.scopeProblem(feature, subject: "\(feature) \(newest) in \(channel)")
            {
                choice.refused.append(problem)
                continue
            }
            for entry in newer.sorted(by: { $0.version > $1.version }) {
                switch checkRelease(entry, of: feature, installed: installed[feature]) {
                case .success(let accepted):
                    choice.updates[feature] = accepted
                case .failure(let problem):
                    choice.refused.append(problem)
                    continue
                }
                break
            }
        }
        return choice
    }
}
