import MicroappSDK

/// The routes claimed so far while a plugin set is checked, indexed so that finding the claims a new pattern
/// overlaps looks only at patterns that could overlap it, not at every claim (3 000 routes took seconds).
///
/// Patterns sit in a trie per scheme and segment count: one level per segment, literal children by text, one child
/// for a parameter. A literal segment follows its own child and the parameter child; a parameter follows every
/// child. So every claim reached overlaps the pattern, and for literal routes the walk is as long as the pattern.
struct RouteClaims {
    /// One claimed route.
    struct Claim {
        /// The parsed pattern.
        var pattern: RoutePattern
        /// The feature that claimed it.
        var owner: String
        /// How many of its segments are literals (the more literal pattern of one feature wins).
        var literals: Int
    }

    private struct Node {
        var literals: [String: Int] = [:]
        var parameter: Int?
        /// Indices into `claims` of the patterns that end here.
        var claims: [Int] = []
    }

    /// Claims in the order they were made.
    private(set) var claims: [Claim] = []
    /// Trie nodes visited and claims looked at by `firstConflict`: the work the check does, for tests.
    private(set) var steps = 0
    private var nodes: [Node] = []
    private var roots: [String: Int] = [:]

    /// The earliest claim that `pattern` of `owner` conflicts with: any overlap with another feature's route, or
    /// an overlap with a route of the same feature that is exactly as literal (neither would win).
    mutating func firstConflict(with pattern: RoutePattern, owner: String) -> Claim? {
        guard let root = roots[Self.key(pattern)] else { return nil }
        let literals = Self.literals(in: pattern)
        var first: Int?
        var frontier = [root]
        for segment in pattern.segments {
            var next: [Int] = []
            for index in frontier {
                steps += 1
                let node = nodes[index]
                switch segment {
                case .literal(let text):
                    if let child = node.literals[text] { next.append(child) }
                case .parameter:
                    next += node.literals.values
                }
                if let child = node.parameter { next.append(child) }
            }
            frontier = next
        }
        for index in frontier {
            for claim in nodes[index].claims where claim < first ?? Int.max {
                steps += 1
                if claims[claim].owner != owner || claims[claim].literals == literals { first = claim }
            }
        }
        return first.map { claims[$0] }
    }

    /// Records `pattern` as claimed by `owner`.
    mutating func claim(_ pattern: RoutePattern, owner: String) {
        let key = Self.key(pattern)
        var index: Int
        if let root = roots[key] {
            index = root
        } else {
            index = newNode()
            roots[key] = index
        }
        for segment in pattern.segments {
            switch segment {
            case .literal(let text):
                if let child = nodes[index].literals[text] {
                    index = child
                } else {
                    let child = newNode()
                    nodes[index].literals[text] = child
                    index = child
                }
            case .parameter:
                if let child = nodes[index].parameter {
                    index = child
                } else {
                    let child = newNode()
                    nodes[index].parameter = child
                    index = child
                }
            }
        }
        nodes[index].claims.append(claims.count)
        claims.append(Claim(pattern: pattern, owner: owner, literals: Self.literals(in: pattern)))
    }

    private mutating func newNode() -> Int {
        nodes.append(Node())
        return nodes.count - 1
    }

    /// Only patterns of one scheme and one length can overlap.
    private static func key(_ pattern: RoutePattern) -> String { "\(pattern.scheme)/\(pattern.segments.count)" }

    private static func literals(in pattern: RoutePattern) -> Int {
        pattern.segments.filter { if case .literal = $0 { true } else { false } }.count
    }
}
