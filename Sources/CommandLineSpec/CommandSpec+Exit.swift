#if canImport(Glibc)
    import Glibc
#endif

extension CommandSpec {
    /// Parses `words` for a program without a richer error path: on `--help` prints the help and exits 0, on a
    /// mistake prints it (`NAME: what` and `  to fix: …`) on stderr and exits 1.
    public func parseOrExit(_ words: [String], allowingHidden: Bool = false) -> ParsedCommand {
        do {
            let parsed = try parse(words, allowingHidden: allowingHidden)
            if parsed.flag("--help") {
                print(help)
                exit(0)
            }
            return parsed
        } catch {
            let text = "\(name): \(error.description)\n"
            _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            exit(1)
        }
    }
}
