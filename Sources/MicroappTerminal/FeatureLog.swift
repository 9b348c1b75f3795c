import MicroappCore

/// The lines isolated features printed (`log` notices), kept for the terminal's log view: the last `limit` of each
/// feature, in the order they came. Their escape sequences were removed where they were read.
struct FeatureLog {
    /// One printed line and the feature that printed it.
    struct Entry: Equatable {
        var feature: String
        var line: String
    }

    /// How many lines of each feature are kept.
    let limit: Int
    private(set) var entries: [Entry] = []
    private var counts: [String: Int] = [:]

    init(limit: Int = 200) { self.limit = max(limit, 1) }

    /// Keeps the line of each `log` notice among `notices` and answers the others.
    mutating func take(_ notices: [Notice]) -> [Notice] {
        notices.filter { notice in
            guard notice.code == Notice.logCode else { return true }
            append(feature: notice.feature ?? "?", line: notice.message)
            return false
        }
    }

    mutating func append(feature: String, line: String) {
        entries.append(Entry(feature: feature, line: line))
        let count = counts[feature, default: 0] + 1
        counts[feature] = count
        guard count > limit, let oldest = entries.firstIndex(where: { $0.feature == feature }) else { return }
        entries.remove(at: oldest)
        counts[feature] = count - 1
    }
}
