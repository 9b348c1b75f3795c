import CommandLineSpec
import TestScratch
import Testing

@Suite("A typed option reads its value converted by its kind; a value its kind refuses is one error")
struct TypedOptionTests {
    enum Colour: String, Sendable { case red, green }

    static let strict = OptionSpec.flag("--strict", help: "strict")
    static let timeout = OptionSpec.value("--timeout", "SECONDS", .seconds, default: .seconds(10), help: "timeout")
    static let colour = OptionSpec.value(
        "--colour", "COLOUR", .choice(of: Colour.self, noun: "a colour", fix: "use --colour red or green"),
        help: "colour")
    static let grant = OptionSpec.repeatable(
        "--grant", "FEATURE=KEY", .pair("FEATURE=KEY", fix: "write e.g. `--grant a=b`"), help: "grant")
    static let even = OptionSpec.value(
        "--even", "N",
        ValueKind<Int> { text, option in
            guard let number = Int(text) else { return .failure(.isNot("a number", fix: "write e.g. `\(option) 2`")) }
            return number % 2 == 0
                ? .success(number) : .failure(.because("\(number) is odd", fix: "write an even number"))
        }, help: "even")
    static let spec = CommandSpec("tool", summary: "a tool", options: [strict, timeout, colour, grant, even])

    @Test(
        "each option reads as its type: a flag's Bool, a converted value, its default, nil, every repeated value",
        .offThePool)
    func readsTypedValues() throws {
        let given = try Self.spec.parse([
            "--strict", "--timeout", "2.5", "--colour=green", "--grant", "a=b", "--grant", "c=d=e", "--even", "4",
        ])
        #expect(given[Self.strict])
        #expect(given[Self.timeout] == .milliseconds(2500))
        #expect(given[Self.colour] == .green)
        #expect(given[Self.grant] == [KeyValuePair(key: "a", value: "b"), KeyValuePair(key: "c", value: "d=e")])
        #expect(given[Self.even] == 4)
        let none = try Self.spec.parse([])
        #expect(!none[Self.strict])
        #expect(none[Self.timeout] == .seconds(10))
        #expect(none[Self.colour] == nil)
        #expect(none[Self.grant].isEmpty)
    }

    @Test("the last value of a single-valued option counts", .offThePool)
    func lastValueCounts() throws {
        #expect(try Self.spec.parse(["--colour", "red", "--colour", "green"])[Self.colour] == .green)
    }

    @Test(
        "a value its kind refuses is an error naming the option, the value and the fix",
        .offThePool,
        arguments: [
            (["--timeout", "soon"], "--timeout soon is not a number of seconds above 0", "write e.g. `--timeout 30`"),
            (["--timeout", "0"], "--timeout 0 is not a number of seconds above 0", "write e.g. `--timeout 30`"),
            (["--timeout=inf"], "--timeout inf is not a number of seconds above 0", "write e.g. `--timeout 30`"),
            (["--colour", "blue"], "--colour blue is not a colour", "use --colour red or green"),
            (["--grant", "a="], "--grant a= is not FEATURE=KEY", "write e.g. `--grant a=b`"),
            (["--even", "x"], "--even x is not a number", "write e.g. `--even 2`"),
            (["--even", "3"], "--even 3: 3 is odd", "write an even number"),
        ])
    func refusedValue(words: [String], message: String, fix: String) {
        #expect(throws: CommandLineError(message, fix: fix)) { try Self.spec.parse(words) }
    }

    @Test("the first refused value is the one said", .offThePool)
    func firstRefusalIsSaid() {
        #expect(throws: CommandLineError("--colour blue is not a colour", fix: "use --colour red or green")) {
            try Self.spec.parse(["--colour", "blue", "--even", "3"])
        }
    }

    @Test("--help needs no value to be right: a refused value does not hide the help", .offThePool)
    func helpDespiteBadValue() throws {
        #expect(try Self.spec.parse(["--colour", "blue", "--help"])[CommandSpec.helpOption])
    }

    @Test("an option the command does not declare reads as not given", .offThePool)
    func undeclaredReadsAsAbsent() throws {
        let other = CommandSpec("other", summary: "another tool", options: [Self.strict])
        #expect(try other.parse(["--strict"])[Self.timeout] == .seconds(10))
        #expect(try other.parse(["--strict"])[Self.colour] == nil)
    }

    @Test("an option declared again with another help reads the same way and shows the new help", .offThePool)
    func anotherHelp() throws {
        let described = Self.timeout.with(help: "how long to wait here")
        let spec = CommandSpec("waiter", summary: "waits", options: [described])
        #expect(spec.help.contains("how long to wait here"))
        #expect(try spec.parse(["--timeout", "1"])[Self.timeout] == .seconds(1))
        #expect(throws: CommandLineError.self) { try spec.parse(["--timeout", "-"]) }
    }

    @Test("a command adding options accepts and shows them, and keeps --help last", .offThePool)
    func addingOptions() throws {
        let spec = CommandSpec("tool", summary: "a tool", options: [Self.strict]).adding([Self.colour.option])
        #expect(spec.options.map(\.name) == ["--strict", "--colour", "--help"])
        #expect(try spec.parse(["--colour", "red"])[Self.colour] == .red)
        #expect(spec.help.contains("--colour COLOUR"))
    }
}
