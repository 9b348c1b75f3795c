import MicroappDevLoop
import TestScratch
import Testing

/// What a rebuild shows of the compiler's output, and which files it counts as sources.
@Suite("Rebuild output and sources")
struct RebuildOutputTests {
    /// The compiler's output for two errors in one file, as Swift 6.3 prints it: each error once for the module job
    /// and again for the object job, with the source quoted around it.
    static let output = """
        /r/Plugins/Characters/Sources/Detail.swift:83:31: error: cannot convert value of type 'String' to specified type 'Int'
        81 | }
        82 |
        83 | private let notANumber: Int = "not a number"
           |                               `- error: cannot convert value of type 'String' to specified type 'Int'
        84 | private func f() { let x: String = 3 }

        /r/Plugins/Characters/Sources/Detail.swift:84:36: error: cannot convert value of type 'Int' to specified type 'String'
        83 | private let notANumber: Int = "not a number"
        84 | private func f() { let x: String = 3 }
           |                                    `- error: cannot convert value of type 'Int' to specified type 'String'
        error: emit-module command failed with exit code 1 (use -v to see invocation)
        /r/Plugins/Characters/Sources/Detail.swift:83:31: error: cannot convert value of type 'String' to specified type 'Int'
        83 | private let notANumber: Int = "not a number"
        """

    @Test("each compiler error is shown once, followed by the source line it points at", .offThePool)
    func errorsOnceWithTheirLine() {
        #expect(
            PluginBuilder.firstErrors(in: Self.output) == [
                "/r/Plugins/Characters/Sources/Detail.swift:83:31: error: cannot convert value of type 'String' to specified type 'Int'",
                "83 | private let notANumber: Int = \"not a number\"",
                "/r/Plugins/Characters/Sources/Detail.swift:84:36: error: cannot convert value of type 'Int' to specified type 'String'",
                "84 | private func f() { let x: String = 3 }",
            ])
        #expect(PluginBuilder.firstErrors(in: Self.output, limit: 1).count == 2)
    }

    @Test("a file name written as a terminal hyperlink (OSC 8) is shown as the plain file name", .offThePool)
    func hyperlinkedFileNames() {
        let link = "\u{1B}]8;;file:///r/Plugins/Auth/Sources/SignIn.swift\u{1B}\\"
        let output = [
            link + "/r/Plugins/Auth/Sources/SignIn.swift\u{1B}]8;;\u{07}:12:9: error: missing argument",
            "12 |         Button(title: \"Go\")",
        ].joined(separator: "\n")
        #expect(
            PluginBuilder.firstErrors(in: output) == [
                "/r/Plugins/Auth/Sources/SignIn.swift:12:9: error: missing argument",
                "12 |         Button(title: \"Go\")",
            ])
    }

    /// A coloured error with a note in the SDK (as a terminal-planned replay prints it): the note comes first in the
    /// output of the object job, the error in the module job's.
    static let coloured = [
        "\u{1B}[1m/r/Sources/MicroappSDK/Swift/Button.swift:50:12: \u{1B}[0m\u{1B}[1;30mnote: \u{1B}[0m\u{1B}[1m'init(id:title:)' declared here\u{1B}[0m",
        "\u{1B}[0;36m50 |\u{1B}[0;0m     public init(id: String, title: String)",
        "\u{1B}[1m/r/Plugins/Auth/Sources/SignIn.swift:12:9: \u{1B}[0m\u{1B}[1;31merror: \u{1B}[0m\u{1B}[1mmissing argument for parameter 'id' in call\u{1B}[0m",
        "\u{1B}[0;36m11 |\u{1B}[0;0m",
        "\u{1B}[0;36m12 |\u{1B}[0;0m         Button(title: \"Go\")",
        "\u{1B}[0;36m   |\u{1B}[0;0m         `- error: missing argument for parameter 'id' in call",
        "error: emit-module command failed with exit code 1 (use -v to see invocation)",
    ].joined(separator: "\n")

    @Test(
        "coloured compiler output is shown without escape codes, each error with its file:line:col and source line, errors before notes",
        .offThePool)
    func colouredErrorsBeforeNotes() {
        #expect(
            PluginBuilder.firstErrors(in: Self.coloured) == [
                "/r/Plugins/Auth/Sources/SignIn.swift:12:9: error: missing argument for parameter 'id' in call",
                "12 |         Button(title: \"Go\")",
                "/r/Sources/MicroappSDK/Swift/Button.swift:50:12: note: 'init(id:title:)' declared here",
                "50 |     public init(id: String, title: String)",
            ])
    }

    @Test("a failed link without a positioned error is shown by its error lines, not by the last lines", .offThePool)
    func positionlessErrors() {
        let output = """
            /usr/bin/ld.gold: error: cannot open Characters.build/A.swift.o: No such file or directory
            clang: error: linker command failed with exit code 1 (use -v to see invocation)
            error: link command failed with exit code 1 (use -v to see invocation)
            done
            """
        #expect(
            PluginBuilder.firstErrors(in: output) == [
                "/usr/bin/ld.gold: error: cannot open Characters.build/A.swift.o: No such file or directory"
            ])
    }

    @Test("output without an error line is shown by its last lines", .offThePool)
    func noErrorLine() {
        let output = (1...8).map { "line \($0)" }.joined(separator: "\n")
        #expect(PluginBuilder.firstErrors(in: output) == (4...8).map { "line \($0)" })
    }

    @Test("Swift files count as sources unless hidden, as SwiftPM counts them", .offThePool)
    func sources() {
        #expect(PluginBuilder.isSource("Detail.swift"))
        #expect(PluginBuilder.isSource("Screens/Detail.swift"))
        #expect(!PluginBuilder.isSource(".#Detail.swift"))
        #expect(!PluginBuilder.isSource(".hidden/Detail.swift"))
        #expect(!PluginBuilder.isSource("Detail.swift~"))
        #expect(!PluginBuilder.isSource("README.md"))
    }
}
