import Foundation
import MicroappCore
import MicroappIsolation
import MicroappPlatform

/// Whether isolated features can have their sandbox on this kernel: the mechanisms `Sandbox.support` says it lacks,
/// and whether `--allow-unsandboxed` lets them run without those (their children then apply the rest).
package struct SandboxCheck: Sendable {
    /// The mechanisms this kernel lacks.
    package let missing: [SandboxMechanism]
    /// `--allow-unsandboxed`.
    package let allowsUnsandboxed: Bool

    /// A check that counts `missing` as lacking, letting isolated features run without them when `allowsUnsandboxed`.
    package init(missing: [SandboxMechanism], allowsUnsandboxed: Bool) {
        self.missing = missing
        self.allowsUnsandboxed = allowsUnsandboxed
    }

    /// The test-only variable that adds mechanisms to those the kernel lacks (`landlock,seccomp`).
    package static let testVariable = "MICROAPP_TEST_SANDBOX_MISSING"

    /// The check for this kernel under `--allow-unsandboxed` (or not). `MICROAPP_TEST_SANDBOX_MISSING` (test-only)
    /// adds the mechanisms it names to what the kernel lacks, so that the refusal is tested on a kernel that has them
    /// all: it can make the host refuse more, or call a child unsandboxed that in fact applied every mechanism the
    /// kernel has, never weaken a sandbox. `environment` is the process's, read by the caller.
    package static func here(allowingUnsandboxed: Bool, environment: [String: String]) -> SandboxCheck {
        let pretended = (environment[testVariable] ?? "").split(separator: ",")
            .compactMap { SandboxMechanism(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        let missing = Sandbox.support.missing
        return SandboxCheck(
            missing: missing + pretended.filter { !missing.contains($0) }, allowsUnsandboxed: allowingUnsandboxed)
    }

    /// Whether an isolated feature's child runs without some of its sandbox.
    package var unsandboxed: Bool { !missing.isEmpty && allowsUnsandboxed }

    /// Whether `plugin` runs confined: in a child that applies the whole sandbox, which has only the capabilities the
    /// policy grants (the resolver's `Candidate.sandboxed`).
    package func confines(_ plugin: any LoadedPlugin) -> Bool { plugin is IsolatedPlugin && !unsandboxed }

    /// `decision`, its reason saying "unsandboxed" when the feature runs isolated without what this kernel lacks.
    package func annotated(_ decision: IsolationDecision) -> IsolationDecision {
        guard decision.mode == .process, unsandboxed else { return decision }
        return IsolationDecision(
            .process, reason: "\(decision.reason); unsandboxed: this kernel lacks \(names) (--allow-unsandboxed)")
    }

    /// Why the library at `path`, decided to run isolated, may not start here; nil when it may.
    package func refusal(of path: String, _ decision: IsolationDecision) -> Problem? {
        guard decision.mode == .process, !missing.isEmpty, !allowsUnsandboxed else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        return Problem(
            .sandboxMissing, subject: path,
            reason:
                "it runs isolated (\(decision.reason)), and this kernel lacks \(names), which its sandbox needs",
            fix:
                "enable \(names) in the kernel (`microapp doctor` says why each is missing); or run with --allow-unsandboxed to run it in a child without them; or, if you trust it, `microapp lock \(folder) --isolation none`"
        )
    }

    /// Why the library at `path` may not be probed (`probe`, `lock`) here: its probe runs sandboxed, and this kernel
    /// lacks part of the sandbox without `--allow-unsandboxed`; nil when it may.
    package func probeRefusal(of path: String) -> Problem? {
        guard !missing.isEmpty, !allowsUnsandboxed else { return nil }
        return Problem(
            .sandboxMissing, subject: path,
            reason:
                "its code runs only in a sandboxed probe process, and this kernel lacks \(names), which that sandbox needs",
            fix:
                "enable \(names) in the kernel (`microapp doctor` says why each is missing); or run with --allow-unsandboxed to probe it in a child without them"
        )
    }

    private var names: String { missing.map(\.rawValue).joined(separator: ", ") }
}
