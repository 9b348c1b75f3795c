import DemoServices
import Foundation
import MicroappCore
import MicroappSDK
import MicroappTerminal
import Testing

@testable import MicroappTool

/// The SDK's refusal of a manifest that is not an object (the SDK makes its errors only by decoding).
private func refusedManifest() -> any ProblemDescribing {
    do throws(ManifestError) {
        _ = try ManifestCoding.decode("[]")
        return Problem(.badManifest, subject: "[]", reason: "the SDK accepted it", fix: "refuse it")
    } catch {
        return error
    }
}

/// One value of every error people see, each with a subject, a reason and a fix of its own.
@MainActor
private let samples: [any ProblemDescribing] = [
    Problem(.badManifest, subject: "libAuth.so", reason: "routes is empty", fix: "declare a route"),
    MockChoiceError(reason: "characters.page has no variant 'slow'", fix: "use one of: default, failing"),
    refusedManifest(),
    RouteError(url: "Characters://list", reason: "scheme 'Characters' is not lowercase letters"),
    DependencyError(key: "auth.signIn", reason: "nothing provides it", fix: "add a provider to the container"),
    StorageError(
        kind: .corrupt, file: "/data/microapp.sqlite", reason: "the database is damaged",
        detail: "file is not a database", fix: "move it aside"),
    ConfigurationError(subject: "ftp://x", reason: "the characters URL is not http", fix: "give an https URL"),
    Problem.usage("--ui tui is not a front end", fix: "use --ui terminal, --ui text or --ui json"),
    Console.OutputError(type: "Measurement", reason: "infinity has no JSON spelling"),
    Problem(code: "nothing-to-run", subject: "", reason: "no feature is left to run", fix: "build the plugins"),
]

/// The error types that are not told to people as problems, and why.
private let notProblems: Set<String> = [
    "ServiceError",  // the plugin boundary's code and message, shown by features in their own screens
    "CommandLineError",  // its module sees no host types; the CLI tells it as `Problem.usage`, the one usage shape
    "ValueRejection",  // why a value is not of its option's kind: parsing makes it a CommandLineError naming the option
    "ELFReadError",  // a clause the loader puts into an `sdk-mismatch` Problem's reason, never shown alone
    "StartFailure",  // why a feature's child did not start: turned into a Problem, or its cause rethrown
    "BenchmarkError",  // a benchmark's own failure
    "Failure",  // RootDriver's: a test's or preview's failure with the screen; `microapp preview` wraps it
    "ParseFailure",  // an input line that is not an event: the front end posts it as a `bad-event` notice
    "FeatureWireError",  // a clause of a `feature-protocol` stop's reason (FeatureStop), never shown alone
    "ParseError",  // where bytes are not JSON: a clause of the reason of the Problem its reader makes (lock-mismatch)
    "FormatError",  // why a plugins.lock is not one: the clause `PluginLock.load` puts in its lock-mismatch reason
    "Mismatch",  // CompactReader's: the probe cache's hand reader hands the bytes to the Codable walk, never shown
]

@Suite("One error shape")
@MainActor
struct ProblemTests {
    @Test("every sample error renders its subject, reason and fix as text: `what: why` then `  to fix: …`")
    func textNamesSubjectReasonAndFix() {
        for error in samples {
            let problem = error.problem
            #expect(!problem.code.rawValue.isEmpty, "\(type(of: error)) has no code")
            #expect(!problem.reason.isEmpty && !problem.fix.isEmpty, "\(type(of: error)) lacks a reason or fix")
            let lines = problem.text.components(separatedBy: "\n")
            #expect(lines.count == 2, "\(type(of: error)): \(problem.text)")
            #expect(lines.first?.hasPrefix(problem.subject) == true)
            #expect(lines.first?.hasSuffix(problem.reason) == true)
            #expect(lines.last == "  to fix: \(problem.fix)")
        }
    }

    @Test("every sample error becomes the same JSON error line: type, code, message (subject: reason) and fix")
    func jsonLineCarriesCodeMessageAndFix() throws {
        for error in samples {
            let problem = error.problem
            let line = JSONLinesDriver.noticeLine(problem.notice)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(line.hasPrefix(#"{"type":"error","#))
            #expect(object["code"] as? String == problem.code.rawValue)
            #expect(object["message"] as? String == problem.message)
            #expect(object["fix"] as? String == problem.fix)
            #expect(problem.subject.isEmpty || problem.message.hasPrefix("\(problem.subject): "))
        }
    }

    @Test("control characters in a subject (a file name) are removed from the text, not printed to the terminal")
    func textIsSanitized() {
        let problem = Problem(.notFound, subject: "lib\u{1B}[2JAuth.so", reason: "gone", fix: "build it").problem
        #expect(!problem.text.contains("\u{1B}"))
    }

    @Test("a command that throws a storage error's problem says exactly what the storage error says, code included")
    func thrownProblemKeepsAnotherErrorsWords() {
        let storage = StorageError(
            kind: .readOnly, file: "/ro/microapp.sqlite", reason: "the database is read-only",
            detail: "attempt to write a readonly database", fix: "make it writable")
        let thrown: Problem = storage.problem
        #expect(thrown.code == "storage-readOnly")
        // What the tool prints for a thrown problem (`Console.err`): `microapp: ` and the problem's text.
        #expect("microapp: \(thrown.text)" == storage.description)
        #expect(
            storage.description
                == "microapp: /ro/microapp.sqlite: the database is read-only (attempt to write a readonly database)\n  to fix: make it writable"
        )
    }

    @Test("every error type declared in Sources and hosts adopts ProblemDescribing or is listed with a reason")
    func everyErrorTypeConforms() async throws {
        // Seconds of regular expressions over every source file: off the main actor, which every main-actor suite
        // of the test process shares.
        let declared = try await Task.detached { try Self.declaredErrorTypes() }.value
        let adoptedElsewhere = Set(samples.map { "\(type(of: $0))" })
        for type in declared {
            #expect(
                type.conforms || adoptedElsewhere.contains(type.name) || notProblems.contains(type.name),
                "\(type.file): \(type.name) is an error people may see; adopt ProblemDescribing")
        }
        let names = declared.map(\.name)
        #expect(names.contains("Problem") && names.contains("StorageError"), "the scan found \(names)")
    }

    /// Each type declared as an `Error` or `ProblemDescribing` in Sources, hosts and Benchmarks: its file, its name
    /// and whether its declaration adopts `ProblemDescribing`.
    nonisolated static func declaredErrorTypes() throws -> [(file: String, name: String, conforms: Bool)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let declaration = try Regex(#"(?:struct|enum|class) (\w+): ([^{]*\b(?:Error|ProblemDescribing)\b[^{]*)\{"#)
        var found: [(file: String, name: String, conforms: Bool)] = []
        for folder in ["Sources", "hosts", "Benchmarks"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for match in text.matches(of: declaration) {
                    let name = String(text[match.output[1].range!])
                    let conforms = text[match.output[2].range!].contains("ProblemDescribing")
                    found.append(("\(folder)/\(file)", name, conforms))
                }
            }
        }
        return found
    }
}
