/// The word a person most likely meant: `doctr` → `doctor`, `--plugin` → `--plugins`. A candidate counts when it is
/// within a couple of edits of the word (a third of its length, at least one), or the word is a prefix of it.
public enum NearMiss {
    /// The closest of `candidates` to `word`, or nil when none is close enough to suggest.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        let scored = candidates.map { (candidate: $0, distance: distance(word, $0)) }
        if let best = scored.filter({ $0.distance <= limit }).min(by: { $0.distance < $1.distance }) {
            return best.candidate
        }
        return word.count >= 3 ? candidates.first { $0.hasPrefix(word) } : nil
    }

    /// The edit distance (insertions, deletions, substitutions, and swaps of two neighbours) between `a` and `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitution = rows[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
