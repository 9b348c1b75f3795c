import Foundation

extension CommandSpec {
    /// Parses `words` for a program without a richer error path: on `--help` prints the help and exits 0, on a
    /// mistake prints it (`NAME: what` and `  to fix: …`) on stderr and exits 1.
    package func parseOrExit(_ words: [String], allowingHidden: Bool = false) -> ParsedCommand {
        do {
            let parsed = try parse(words, allowingHidden: allowingHidden)
            if parsed.flag("--help") {
                print(help)
                exit(0)
            }
            return parsed
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("\(name): \(error.description)\n".utf8))
            exit(1)
        }
    }
}
