import Foundation
import MicroappCore

/// Graphviz lays the dependency graph out: its `dot` program (Debian's graphviz; .ci/run installs it) turns the graph's
/// DOT text into SVG. Nothing is laid out by hand.
public enum GraphLayout {
    /// Why no drawing was made.
    public struct Failure: ProblemDescribing, Sendable {
        /// What went wrong, with the fix.
        public let problem: Problem
    }

    /// The SVG drawing of `dot` (DOT text), laid out by Graphviz's `dot` in at most `timeLimit`; `folder` is where
    /// the DOT text is written for it. Blocks: call it off the cooperative pool.
    public static func svg(
        fromDOT dot: String, folder: String, timeLimit: Duration = .seconds(20)
    ) throws(Failure) -> String {
        let input = folder + "/microapp-graph-\(UUID().uuidString).dot"
        guard Files.write(Data(dot.utf8), to: input) else {
            throw Failure(
                problem: Problem(
                    code: .graphLayout, subject: folder, reason: "cannot write the graph's DOT text there",
                    fix: "set TMPDIR to a writable folder"))
        }
        defer { try? Files.remove(input) }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess(["dot", "-Tsvg", input]).wait(timeout: timeLimit)
        } catch {
            throw Failure(
                problem: Problem(
                    code: .graphLayout, subject: "dot", reason: "Graphviz's `dot` cannot be started (\(error))",
                    fix: "install Graphviz (`sudo apt-get install graphviz`), or use --format dot"))
        }
        guard outcome.termination == .exited(0), outcome.text.contains("<svg") else {
            let said = String(decoding: outcome.error, as: UTF8.self).split(separator: "\n").first.map(String.init)
            throw Failure(
                problem: Problem(
                    code: .graphLayout, subject: "dot",
                    reason: "Graphviz's `dot` did not draw the graph (\(said ?? "\(outcome.termination)"))",
                    fix: "check `dot -V` works, or use --format dot and lay it out yourself"))
        }
        return outcome.text
    }
}
