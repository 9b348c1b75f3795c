import CommandLineSpec
import TestScratch
import Testing

@Suite("An option with a short name reads the same written either way, and the help shows both")
struct ShortOptionTests {
    static let output = OptionSpec.value("--output", "DIR", .text, help: "where").abbreviated("-o")
    static let spec = CommandSpec("tool", summary: "a tool", operands: [.required("NAME")], options: [output])

    @Test(
        "-o DIR and --output DIR give the value; -o=DIR too; an unknown one-letter option is still refused", .offThePool
    )
    func shortAndLong() throws {
        #expect(try Self.spec.parse(["x", "-o", "out"])[Self.output] == "out")
        #expect(try Self.spec.parse(["x", "--output", "out"])[Self.output] == "out")
        #expect(try Self.spec.parse(["x", "-o=out"])[Self.output] == "out")
        #expect(throws: CommandLineError.self) { try Self.spec.parse(["x", "-p", "out"]) }
        #expect(Self.spec.help.contains("-o, --output DIR"))
    }
}
