import CommandLineSpec
import Foundation

/// The value of option `name` as a whole number above 0, or `fallback` when it was not given; any other value
/// ends the program with exit 1, naming the option.
public func positive(_ parsed: ParsedCommand, _ name: String, _ fallback: Int) -> Int {
    guard let text = parsed.value(name) else { return fallback }
    guard let value = Int(text), value > 0 else {
        FileHandle.standardError.write(
            Data("\(name) \(text) is not a whole number above 0\n  to fix: write e.g. `\(name) \(fallback)`\n".utf8))
        exit(1)
    }
    return value
}

/// The RUNS operand of `command` parsed from this process's arguments, or `fallback` when it was not given; any
/// other value than a whole number above 0 ends the program with exit 1.
public func runsOperand(of command: CommandSpec, fallback: Int) -> Int {
    let operand = command.parseOrExit(Array(CommandLine.arguments.dropFirst())).operands.first
    let runs = operand.map { Int($0) ?? 0 } ?? fallback
    guard runs > 0 else {
        FileHandle.standardError.write(Data("\(command.name): RUNS must be a number above 0\n".utf8))
        exit(1)
    }
    return runs
}
