import MicroappCore

extension Signer {
    /// Whether the person trusts the key to sign releases of `feature`: its entry names the id (there are no
    /// wildcards, so a host's own feature is taken only from a key whose entry names it).
    public func maySign(_ feature: String) -> Bool { features.contains(feature) }

    /// The `key-scope` problem of a release of `feature` signed by this key, read at `subject`; nil when the key
    /// may sign it.
    public func scopeProblem(_ feature: String, subject: String) -> Problem? {
        guard !maySign(feature) else { return nil }
        let keyid = KeyText.publicKey(key).map(KeyText.id(of:)) ?? key
        if features.isEmpty {
            return Problem(
                .keyScope, subject: subject,
                reason:
                    "it is signed by \(name)'s key \(keyid), whose trust entry names no feature it may sign (written before keys were scoped): a key is trusted for named features, never for everything",
                fix:
                    "if \(name) publishes \(feature), scope the key: `microapp trust \(key) --name \(name) --feature \(feature)` (one --feature per id it may sign)"
            )
        }
        let scope = features.joined(separator: ", ")
        return Problem(
            .keyScope, subject: subject,
            reason:
                "it is signed by \(name)'s key \(keyid), which may sign only \(scope), not \(feature): a trusted key does not make another team's (or the host's own) feature its own",
            fix:
                "do not install it; if \(name) really publishes \(feature), trust the key for it too: `microapp trust \(key) --name \(name) \((features + [feature]).map { "--feature \($0)" }.joined(separator: " "))`"
        )
    }
}
