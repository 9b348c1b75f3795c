import CPlatform
import Glibc
import MicroappCore
import MicroappPlatform
import TestScratch
import Testing

@testable import MicroappTool

/// A supervised run whose app process ends on purpose ends its supervisor before `main` (CPlatform's
/// early_supervisor.c decides in C how), and one that crashes hands its ending to Swift's Supervisor: the two must
/// agree on every ending, as `CrashLoop.verdict` and `ExitCode` decide it.
@Suite("The supervisor's decisions before main are CrashLoop's")
struct EarlySupervisorDecisionTests {
    /// Swift's answer for a wait status: the exit code and whether the terminal is put back, nil for a crash.
    private func swiftDecision(_ status: Int32) -> (code: Int32, restoresTerminal: Bool)? {
        let ending = AppProcess.ending(of: ChildProcess.Termination(waitStatus: status))
        guard case .end(let exit, let restoresTerminal) = CrashLoop<ContinuousClock.Instant>().verdict(for: ending)
        else { return nil }
        return (ExitCode(exit).rawValue, restoresTerminal)
    }

    /// C's answer for the same status.
    private func cDecision(_ status: Int32) -> (code: Int32, restoresTerminal: Bool)? {
        var restores: Int32 = 0
        let code = microapp_early_supervisor_exit_code(status, &restores)
        return code < 0 ? nil : (code, restores == 1)
    }

    @Test("every exit status and every signal gets the same exit code, terminal and crash verdict", .offThePool)
    func everyEndingAgrees() {
        let exits = (0...255).map { Int32($0) << 8 }
        let signals = (1...64).map { Int32($0) }
        var crashes = 0
        for status in exits + signals {
            let swift = swiftDecision(status)
            let c = cDecision(status)
            #expect(swift?.code == c?.code, "status \(status)")
            #expect(swift?.restoresTerminal == c?.restoresTerminal, "status \(status)")
            if swift == nil { crashes += 1 }
        }
        // Only signals crash: 64 signals less the four that end on purpose (hang-up, kill, ctrl-C, closed output).
        #expect(crashes == 60)
        #expect(cDecision(42 << 8)?.code == ExitCode.crashed.rawValue)
        #expect(cDecision(SIGSEGV) == nil)
    }
}
