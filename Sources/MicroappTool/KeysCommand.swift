import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappPlatform
import MicroappSDK

/// `microapp keys [--json]`: every service and piece of shared state the host offers, from its container and from
/// the features that provide services, with their types and what they are for.
enum KeysCommand: Command {
    static let declaration = CommandSpec(
        "microapp keys", summary: "every service and shared state the host offers: types, access, what each is for",
        options: [
            CommonOptions.json, CommonOptions.plugins, CommonOptions.only, CommonOptions.noBuild,
            CommonOptions.noProbe, CommonOptions.allowUnsandboxed, CommonOptions.grant,
        ],
        discussion: """
            Lists what a feature can ask for: each key the host's container offers and each service a loaded
            feature provides, with its access (service, read-only or read-write state), its type (a service's
            request → response), its provider (host or a feature id), its one-line summary (from the key's
            `described(_:)`), who may use it (its grant rule) and the features that use it. A feature's requirement must name the same key and
            type. --json writes one object per key (fields in the README, "Inspect commands' JSON").
            """)

    /// One key on offer, a line of `keys --json` (fields in the README, "Inspect commands' JSON").
    struct Row: Codable, Equatable {
        /// The key's string id, as features declare it (`auth.sign-in`, `session`).
        var key: String
        /// `service`, `state` or `capability`.
        var kind: String
        /// `service` (called with read access), `read-only` or `read-write` (the most a feature may get), or
        /// `capability` (declared in the manifest's `capabilities`, not required).
        var access: String
        /// The type name requirements must match (`Service<Credentials, Session>`, `Optional<Session>`).
        var type: String
        /// A service's request type name; nil for state.
        var request: String?
        /// A service's response type name; nil for state.
        var response: String?
        /// `host`, or the id of the feature that provides it.
        var provider: String
        /// One line saying what it is; nil when its declaration gives none.
        var summary: String?
        /// Ids of the features whose requirements name this key.
        var usedBy: [String]
        /// Who may use it (its grant rule: `public`, `settings only`, `features own or pinned`…); nil for a
        /// capability.
        var grantedTo: String?
        /// True when an untrusted feature may use it without a grant (read-only for public read-only state).
        var `public`: Bool?
    }

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let set = try await LoadedPluginSet.load(arguments, host: host)
        defer { set.endIsolated() }
        let rows = offers(set)
        if arguments[CommonOptions.json] {
            rows.forEach(Console.json)
        } else {
            Console.out(text(rows))
        }
        // On stderr also beside JSON rows: a library that did not load is said, not left out silently.
        Console.report(set.problems)
        return .ok
    }

    /// The container's offers and every loaded feature's provisions, by key then provider.
    @MainActor
    static func offers(_ set: LoadedPluginSet) -> [Row] {
        func users(of key: String) -> [String] {
            set.plugins.filter { $0.manifest.requirements.contains { $0.key == key } }.map(\.manifest.id).sorted()
        }
        let hosted = set.container.offers.values.filter { $0.provider == "host" }.map { offer in
            row(
                key: offer.key, kind: offer.kind, access: offer.access, type: offer.type, provider: offer.provider,
                summary: offer.summary, usedBy: users(of: offer.key))
        }
        let provided = set.plugins.flatMap { image in
            image.manifest.provides.map { provision in
                row(
                    key: provision.key, kind: .service, access: .read, type: provision.type,
                    provider: image.manifest.id, summary: provision.summary, usedBy: users(of: provision.key))
            }
        }
        // What the host can grant beyond keys: a feature asks for a capability in its manifest's `capabilities`.
        let capabilities = CapabilityPolicy.known.map { capability in
            Row(
                key: capability.rawValue, kind: "capability", access: "capability", type: "Capability",
                provider: "host", summary: CapabilityPolicy.summaries[capability],
                usedBy: set.plugins.filter { $0.manifest.capabilities.contains(capability) }.map(\.manifest.id).sorted()
            )
        }
        let grants = set.resolution.grants ?? GrantTable()
        let granted = (hosted + provided).map { row in
            var row = row
            let rule = grants.rule(of: row.key)
            (row.grantedTo, row.public) = (rule.summary, rule.isPublic)
            return row
        }
        return (granted + capabilities).sorted { ($0.key, $0.provider) < ($1.key, $1.provider) }
    }

    private static func row(
        key: String, kind: DependencyKind, access: Access, type: String, provider: String, summary: String?,
        usedBy: [String]
    ) -> Row {
        let parts = kind == .service ? serviceParts(type) : nil
        let accessName =
            switch (kind, access) {
            case (.service, _): "service"
            case (.state, .read): "read-only"
            case (.state, .readWrite): "read-write"
            }
        return Row(
            key: key, kind: kind.rawValue, access: accessName, type: type, request: parts?.request,
            response: parts?.response, provider: provider, summary: summary, usedBy: usedBy)
    }

    /// `Service<A, B<C, D>>` → (`A`, `B<C, D>`): the two generic arguments, split at the top-level comma.
    static func serviceParts(_ type: String) -> (request: String, response: String)? {
        guard type.hasPrefix("Service<"), type.hasSuffix(">") else { return nil }
        let inner = type.dropFirst("Service<".count).dropLast()
        var depth = 0
        for index in inner.indices {
            switch inner[index] {
            case "<": depth += 1
            case ">": depth -= 1
            case "," where depth == 0:
                let request = inner[..<index].trimmingCharacters(in: .whitespaces)
                let response = inner[inner.index(after: index)...].trimmingCharacters(in: .whitespaces)
                return (request, response)
            default: break
            }
        }
        return nil
    }

    static func text(_ rows: [Row]) -> String {
        guard !rows.isEmpty else { return "(the host offers nothing)" }
        let keyWidth = max(20, (rows.map(\.key.count).max() ?? 0) + 2)
        let providerWidth = max(10, (rows.map(\.provider.count).max() ?? 0) + 2)
        var lines = [pad("KEY", keyWidth) + pad("ACCESS", 12) + pad("PROVIDER", providerWidth) + "TYPE"]
        for row in rows {
            let type = row.request.map { "\($0) → \(row.response ?? "?")" } ?? row.type
            lines.append(pad(row.key, keyWidth) + pad(row.access, 12) + pad(row.provider, providerWidth) + type)
            if let summary = row.summary { lines.append("    \(summary.sanitized)") }
            if !row.usedBy.isEmpty { lines.append("    used by \(row.usedBy.joined(separator: ", "))") }
            if let grantedTo = row.grantedTo { lines.append("    granted to \(grantedTo.sanitized)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.sanitized.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
