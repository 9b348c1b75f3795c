import CommandLineSpec
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappSDK

/// `microapp graph [--format text|dot|svg|json]`: who needs what from whom, with missing providers and cycles marked.
enum GraphCommand: Command {
    static let format = OptionSpec.value(
        "--format", "FORMAT",
        .choice(["text", "dot", "svg", "json"], noun: "a graph format", fix: "use --format text, dot, svg or json"),
        default: "text",
        help: """
            text: a tree (the default)
            dot: Graphviz's DOT text (features, routes, services, state keys, grants)
            svg: the same drawn by Graphviz's `dot` (`microapp graph --format svg > graph.svg`)
            json: one object per feature (fields in the README, "Inspect commands' JSON")
            """)

    static let declaration = CommandSpec(
        "microapp graph", summary: "who needs what from whom; missing providers and cycles marked",
        options: [
            format, CommonOptions.plugins, CommonOptions.only, CommonOptions.noBuild, CommonOptions.noProbe,
            CommonOptions.allowUnsandboxed, CommonOptions.grant,
        ],
        discussion: """
            Loads the plugins as `run` does and shows who needs what from whom: each feature, the services it
            provides, and each of its requirements with its provider (host, a feature, or nobody). A missing
            provider, a wrong type or access, a requirement not granted, and a cycle are marked.
            Exit 2 when a required edge is not ok.
            """)

    /// One requirement as an edge of the graph.
    struct Edge: Codable {
        var key: String
        var type: String
        var access: String
        var optional: Bool
        /// `host`, a feature id, or nil when nobody provides it.
        var provider: String?
        /// `ok`, `missing`, `optional-missing`, `wrong-type`, `wrong-shape`, `wrong-access`, `cycle`,
        /// `provider-disabled` or `not-granted`.
        var status: String
        /// The JSON structure the feature expects (`TypeShape` text); nil for plugins built before shapes.
        var shape: String?
        /// Whether the feature is granted the key and why: `rule` (the key's grant rule admits it), `explicit`
        /// (`--grant`, a trusted lock entry's `grants`), `own` (its own service or mocks), `unoffered` (nobody
        /// offers it) or `refused`.
        var grant: String?
        /// Who may use the key (its grant rule, as `keys` shows it); nil when no rule applies.
        var grantedTo: String?

        /// The edge of one requirement's status.
        init(_ status: RequirementStatus) {
            key = status.requirement.key
            type = status.requirement.type
            access = status.requirement.access.rawValue
            optional = status.requirement.isOptional
            provider = status.provider
            self.status = status.state.rawValue
            shape = status.requirement.shape
            grant = status.grant?.basis.rawValue
            grantedTo = status.grant?.rule
        }
    }

    /// One feature and its requirements.
    struct Node: Codable {
        var feature: String
        var version: Int
        var provides: [String]
        var requirements: [Edge]
        /// What the feature declares beyond its requirements (`network`, `files:scratch`).
        var capabilities: [String]
        /// How far the host trusts it: `untrusted`, `pinned` or `own` (what its grants rest on).
        var trust: String?
        /// The route patterns it answers (`characters://detail/:id`).
        var routes: [String]?
    }

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let format = arguments[Self.format]
        let set = try await LoadedPluginSet.load(arguments, host: host)
        defer { set.endIsolated() }
        let nodes = graph(set)
        switch format {
        case "json": nodes.forEach(Console.json)
        case "dot": Console.out(dot(nodes))
        case "svg":
            do {
                Console.out(try await svg(nodes, folder: arguments.environment.temporaryFolder))
            } catch {
                Console.err(error.problem)
                return .usage
            }
        default: Console.out(text(nodes))
        }
        // On stderr: a library that did not load is said, not left out of the graph silently.
        Console.report(set.problems)
        return nodes.contains { $0.requirements.contains { !["ok", "optional-missing"].contains($0.status) } }
            ? .invalidPluginSet : .ok
    }

    /// The graph as the resolver decided it: each requirement's provider and status come from the resolution.
    @MainActor
    static func graph(_ set: LoadedPluginSet) -> [Node] {
        set.plugins.map { image in
            let statuses = set.resolution.requirements[image.manifest.id] ?? []
            return Node(
                feature: image.manifest.id, version: image.manifest.version,
                provides: image.manifest.provides.map(\.key), requirements: statuses.map(Edge.init),
                capabilities: image.manifest.capabilities.map(\.rawValue),
                trust: set.resolution.trust[image.manifest.id]?.rawValue,
                routes: image.manifest.routes.map(\.pattern))
        }
    }

    static func text(_ nodes: [Node]) -> String {
        var lines: [String] = []
        for node in nodes {
            let provides = node.provides.isEmpty ? "" : "  (provides \(node.provides.joined(separator: ", ")))"
            let may = node.capabilities.isEmpty ? "" : "  [may: \(node.capabilities.joined(separator: ", "))]"
            let trust = node.trust.map { "  [\($0)]" } ?? ""
            lines.append("\(node.feature) v\(node.version)\(provides)\(may)\(trust)")
            for (index, edge) in node.requirements.enumerated() {
                let branch = index == node.requirements.count - 1 ? "└─" : "├─"
                let source = edge.provider.map { "← \($0)" } ?? "← nobody"
                let granted = edge.grant == "explicit" ? "   granted by name" : ""
                let refused = edge.grantedTo.map { " (granted to: \($0))" } ?? ""
                let mark =
                    edge.status == "ok" ? granted : "   ✗ \(edge.status)\(edge.grant == "refused" ? refused : "")"
                lines.append(
                    "  \(branch) \(edge.key) (\(edge.access)\(edge.optional ? ", optional" : "")) \(source)\(mark)")
            }
            if node.requirements.isEmpty { lines.append("  └─ (needs nothing)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The graph as Graphviz's DOT: a box per feature (its id, version and routes; an untrusted one drawn dashed and
    /// red, marked "untrusted"), an ellipse per service or state key (who provides it: an edge from the provider), an
    /// edge from each feature to what it needs (labelled with its access; red and dashed when not ok, naming why),
    /// and a note for what nobody provides. Every name is quoted: a feature's words never become DOT syntax.
    static func dot(_ nodes: [Node]) -> String {
        var lines = [
            "digraph microapp {", "  rankdir=LR;", "  node [fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];", "  \"host\" [shape=house, label=\"host\"];",
        ]
        var keys: Set<String> = []
        func key(_ name: String) -> String {
            if keys.insert(name).inserted {
                lines.append("  \(quoted("key:" + name)) [shape=ellipse, label=\(quoted(name))];")
            }
            return quoted("key:" + name)
        }
        for node in nodes {
            let untrusted = node.trust == "untrusted"
            let label = (["\(node.feature) v\(node.version)" + (untrusted ? " (untrusted)" : "")] + (node.routes ?? []))
                .joined(separator: "\n")
            let style = untrusted ? ", style=dashed, color=red, fontcolor=red" : ""
            lines.append("  \(quoted(node.feature)) [shape=box, label=\(quoted(label))\(style)];")
            for provided in node.provides {
                lines.append("  \(quoted(node.feature)) -> \(key(provided)) [label=\"provides\"];")
            }
        }
        for node in nodes {
            for edge in node.requirements {
                let target: String
                if let provider = edge.provider {
                    target = key(edge.key)
                    // Drawn from the key back to the host, so the host stands on the right, past every key it offers.
                    if provider == "host" {
                        lines.append("  \(target) -> \"host\" [dir=back, style=dotted, label=\"offered by\"];")
                    }
                } else {
                    target = quoted("missing:" + edge.key)
                    lines.append(
                        "  \(target) [shape=note, color=red, fontcolor=red, label=\(quoted("nobody provides " + edge.key))];"
                    )
                }
                let granted = edge.grant == "explicit" ? ", granted by name" : ""
                let words = edge.access + (edge.optional ? ", optional" : "") + granted
                let style =
                    edge.status == "ok"
                    ? "label=\(quoted(words))"
                    : "label=\(quoted(words + " ✗ " + edge.status)), color=red, fontcolor=red, style=dashed"
                lines.append("  \(quoted(node.feature)) -> \(target) [\(style)];")
            }
        }
        lines.append("}")
        var seen: Set<String> = []
        return lines.filter { seen.insert($0).inserted }.joined(separator: "\n")
    }

    /// `text` as a DOT string: in double quotes, with quotes and backslashes escaped and line breaks kept as `\n`.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"" + escaped + "\""
    }

    /// The graph drawn as SVG by Graphviz (off the main actor: `dot` is a process).
    static func svg(_ nodes: [Node], folder: String) async throws(GraphLayout.Failure) -> String {
        let text = dot(nodes)
        return try await BlockingWork.run { () throws(GraphLayout.Failure) in
            try GraphLayout.svg(fromDOT: text, folder: folder)
        }
    }
}
