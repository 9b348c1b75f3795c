import Foundation
import MicroappCore
import TestScratch
import Testing

extension Problem.Code {
    /// A code a host adds beside the loader's own.
    static let hostOwn: Problem.Code = "host-own"
}

@Suite("Problem codes")
struct ProblemCodeTests {
    @Test(
        "a problem is written as JSON in the shape the loader's diagnostics had: the code as its raw string",
        .offThePool)
    func encodesTheDiagnosticShape() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let problem = Problem(.notFound, subject: "libGone.so", reason: "no such file", fix: "build it")
        let json = String(decoding: try encoder.encode(problem), as: UTF8.self)
        #expect(json == #"{"code":"not-found","fix":"build it","reason":"no such file","subject":"libGone.so"}"#)
    }

    @Test("a problem written by an older host reads back, a code it does not name included", .offThePool)
    func decodesKnownAndUnknownCodes() throws {
        let known = #"{"code":"sdk-mismatch","subject":"libA.so","reason":"built for SDK 1","fix":"rebuild"}"#
        let decoded = try JSONDecoder().decode(Problem.self, from: Data(known.utf8))
        #expect(decoded == Problem(.sdkMismatch, subject: "libA.so", reason: "built for SDK 1", fix: "rebuild"))
        let unknown = #"{"code":"from-the-future","subject":"","reason":"r","fix":"f"}"#
        #expect(try JSONDecoder().decode(Problem.self, from: Data(unknown.utf8)).code.rawValue == "from-the-future")
    }

    @Test("a code written as a string is the named code, so == and switch on codes keep working", .offThePool)
    func literalCodesMatchNamedOnes() {
        let problem = Problem(code: "probe-hung", subject: "", reason: "r", fix: "f")
        #expect(problem.code == .probeHung)
        let kind: String
        switch problem.code {
        case .probeCrashed: kind = "crashed"
        case .probeHung: kind = "hung"
        default: kind = "other"
        }
        #expect(kind == "hung")
    }

    @Test("a host adds a code of its own, and it reaches the JSON error line as written", .offThePool)
    func hostsAddCodes() {
        let problem = Problem(.hostOwn, subject: "setting", reason: "r", fix: "f")
        #expect(problem.code == "host-own")
        #expect(problem.notice.code == "host-own")
        #expect(Problem.Code.hostOwn != .notFound)
    }
}
