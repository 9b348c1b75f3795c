import MicroappHost
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

    @Test("each compiler error is shown once, followed by the source line it points at")
    func errorsOnceWithTheirLine() {
        #expect(
            PluginRebuilder.firstErrors(in: Self.output) == [
                "/r/Plugins/Characters/Sources/Detail.swift:83:31: error: cannot convert value of type 'String' to specified type 'Int'",
                "83 | private let notANumber: Int = \"not a number\"",
                "/r/Plugins/Characters/Sources/Detail.swift:84:36: error: cannot convert value of type 'Int' to specified type 'String'",
                "84 | private func f() { let x: String = 3 }",
            ])
        #expect(PluginRebuilder.firstErrors(in: Self.output, limit: 1).count == 2)
    }

    @Test("output without an error line is shown by its last lines")
    func noErrorLine() {
        let output = (1...8).map { "line \($0)" }.joined(separator: "\n")
        #expect(PluginRebuilder.firstErrors(in: output) == (4...8).map { "line \($0)" })
    }

    @Test("Swift files count as sources unless hidden, as SwiftPM counts them")
    func sources() {
        #expect(PluginRebuilder.isSource("Detail.swift"))
        #expect(PluginRebuilder.isSource("Screens/Detail.swift"))
        #expect(!PluginRebuilder.isSource(".#Detail.swift"))
        #expect(!PluginRebuilder.isSource(".hidden/Detail.swift"))
        #expect(!PluginRebuilder.isSource("Detail.swift~"))
        #expect(!PluginRebuilder.isSource("README.md"))
    }
}
