import Foundation
import TestScratch
import Testing

@testable import MicroappTool

/// A row with a number JSON has no spelling for.
private struct Measurement: Encodable {
    var milliseconds: Double
}

@Suite("Console under --json")
struct ConsoleTests {
    @Test(
        "a value that cannot be encoded is an error naming its type, the reason and the fix, not an empty line",
        .offThePool)
    func unencodableValueIsAnError() throws {
        let result = Console.line(encoding: Measurement(milliseconds: .infinity))
        guard case .failure(let problem) = result else {
            Issue.record("a non-finite number was written as JSON: \(result)")
            return
        }
        #expect(problem.type == "Measurement")
        #expect(!problem.reason.isEmpty)
        #expect(problem.problem.text.hasPrefix("could not write a Measurement as JSON: "))
        #expect(problem.problem.text.contains("\n  to fix: "))
    }

    @Test("a value that encodes is one line of JSON with sorted keys", .offThePool)
    func encodableValueIsOneLine() throws {
        #expect(try Console.line(encoding: ["b": 1, "a": 2]).get() == #"{"a":2,"b":1}"#)
    }

    @Test("once a JSON line was lost, the process exits non-zero whatever the command returned", .offThePool)
    func lostOutputExitsNonZero() {
        #expect(Console.exitCode(for: .ok) == .ok)
        Console.json(Measurement(milliseconds: .nan))
        #expect(Console.exitCode(for: .ok) == .internalError)
        #expect(Console.exitCode(for: .ok).rawValue != 0)
    }

    @Test(
        "a host's own name replaces microapp where it is the command, never in a path, file, marker or quoted id",
        .offThePool,
        arguments: [
            ("microapp: `microapp rollback` needs NAME", "hello-host: `hello-host rollback` needs NAME"),
            ("did you mean `microapp routes`?", "did you mean `hello-host routes`?"),
            ("swift run microapp solo X", "swift run hello-host solo X"),
            ("  microapp --help | --version", "  hello-host --help | --version"),
            ("this microapp was not built from one", "this hello-host was not built from one"),
            ("a bug in microapp.", "a bug in hello-host."),
            ("cached in $XDG_CACHE_HOME/microapp.", "cached in $XDG_CACHE_HOME/microapp."),
            ("~/.local/share/microapp/sdk", "~/.local/share/microapp/sdk"),
            ("include/microapp.h", "include/microapp.h"),
            ("microapp-bundle, microapp_entry", "microapp-bundle, microapp_entry"),
            (#"{"feature":"microapp"}"#, #"{"feature":"microapp"}"#),
            ("`// microapp: features begin`", "`// microapp: features begin`"),
        ])
    func spokenName(written: String, spoken: String) {
        #expect(ProgramName.spoken(written, as: "hello-host") == spoken)
        #expect(ProgramName.spoken(written, as: "microapp") == written)
    }

    @Test(
        "a fix's commands are said as they can be typed: the full path of a host not on PATH (a checkout's), swift run kept, paths and files untouched; the name when it is on PATH",
        .offThePool)
    func typedCommands() {
        let path = "/work/app/.build/x86_64-unknown-linux-gnu/debug/microapp"
        let fix =
            "run `microapp lock plugins`, or `swift run microapp doctor` in the checkout; see ~/.config/microapp/keys"
        #expect(
            ProgramName.typed(fix, as: path, name: "microapp")
                == "run `\(path) lock plugins`, or `swift run microapp doctor` in the checkout; see ~/.config/microapp/keys"
        )
        let own = "/srv/hello/.build/debug/hello-host"
        #expect(
            ProgramName.typed(
                "`microapp lock x` or `swift run -c release microapp install`", as: own, name: "hello-host")
                == "`\(own) lock x` or `swift run -c release hello-host install`")
        #expect(ProgramName.typed(fix, as: "microapp", name: "hello-host") == ProgramName.spoken(fix, as: "hello-host"))
        #expect(ProgramName.typed(fix, as: nil, name: "microapp") == fix)
    }
}
