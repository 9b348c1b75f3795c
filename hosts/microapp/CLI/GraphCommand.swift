import MicroappCore
import MicroappSDK

/// `microapp graph [--format text|dot|json]`: who needs what from whom, with missing providers and cycles marked.
enum GraphCommand {
    /// One requirement as an edge of the graph.
    struct Edge: Codable {
        var key: String
        var type: String
        var access: String
        var optional: Bool
        /// `host`, a feature id, or nil when nobody provides it.
        var provider: String?
        /// `ok`, `missing`, `optional-missing`, `wrong-type`, `wrong-access` or `cycle`.
        var status: String
    }

    /// One feature and its requirements.
    struct Node: Codable {
        var feature: String
        var version: Int
        var provides: [String]
        var requirements: [Edge]
    }

    @MainActor
    static func run(_ arguments: Arguments) throws(UsageError) -> ExitCode {
        let format = arguments.value("--format") ?? "text"
        guard ["text", "dot", "json"].contains(format) else {
            throw UsageError("--format \(format) is not a graph format", fix: "use --format text, dot or json")
        }
        let set = try LoadedPluginSet.load(arguments)
        let nodes = graph(set)
        switch format {
        case "json": nodes.forEach(Console.json)
        case "dot": Console.out(dot(nodes))
        default: Console.out(text(nodes))
        }
        return nodes.contains { $0.requirements.contains { !["ok", "optional-missing"].contains($0.status) } }
            ? .invalidPluginSet : .ok
    }

    @MainActor
    static func graph(_ set: LoadedPluginSet) -> [Node] {
        var providers: [String: (id: String, type: String, access: Access)] = [:]
        for offer in set.container.offers.values { providers[offer.key] = ("host", offer.type, offer.access) }
        for image in set.images {
            for provision in image.manifest.provides where providers[provision.key] == nil {
                providers[provision.key] = (image.manifest.id, provision.type, .read)
            }
        }
        return set.images.map { image in
            let inCycle = set.resolution.disabled[image.manifest.id]?.code == .cycle
            let edges = image.manifest.requirements.map { requirement -> Edge in
                let provider = providers[requirement.key]
                let status: String
                if let provider {
                    if provider.type != requirement.type {
                        status = "wrong-type"
                    } else if requirement.access > provider.access {
                        status = "wrong-access"
                    } else if inCycle && provider.id != "host" {
                        status = "cycle"
                    } else {
                        status = "ok"
                    }
                } else {
                    status = requirement.isOptional ? "optional-missing" : "missing"
                }
                return Edge(
                    key: requirement.key, type: requirement.type, access: requirement.access.rawValue,
                    optional: requirement.isOptional, provider: provider?.id, status: status)
            }
            return Node(
                feature: image.manifest.id, version: image.manifest.version,
                provides: image.manifest.provides.map(\.key), requirements: edges)
        }
    }

    static func text(_ nodes: [Node]) -> String {
        var lines: [String] = []
        for node in nodes {
            let provides = node.provides.isEmpty ? "" : "  (provides \(node.provides.joined(separator: ", ")))"
            lines.append("\(node.feature) v\(node.version)\(provides)")
            for (index, edge) in node.requirements.enumerated() {
                let branch = index == node.requirements.count - 1 ? "└─" : "├─"
                let source = edge.provider.map { "← \($0)" } ?? "← nobody"
                let mark = edge.status == "ok" ? "" : "   ✗ \(edge.status)"
                lines.append(
                    "  \(branch) \(edge.key) (\(edge.access)\(edge.optional ? ", optional" : "")) \(source)\(mark)")
            }
            if node.requirements.isEmpty { lines.append("  └─ (needs nothing)") }
        }
        return lines.joined(separator: "\n")
    }

    static func dot(_ nodes: [Node]) -> String {
        var lines = ["digraph microapp {", "  rankdir=LR;", "  node [shape=box];", "  \"host\" [shape=ellipse];"]
        for node in nodes {
            lines.append("  \"\(node.feature)\" [label=\"\(node.feature) v\(node.version)\"];")
            for edge in node.requirements {
                let target = edge.provider ?? "missing: \(edge.key)"
                if edge.provider == nil {
                    lines.append("  \"\(target)\" [shape=note, color=red, fontcolor=red];")
                }
                let style = edge.status == "ok" ? "" : ", color=red, fontcolor=red, style=dashed"
                lines.append("  \"\(node.feature)\" -> \"\(target)\" [label=\"\(edge.key)\"\(style)];")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
