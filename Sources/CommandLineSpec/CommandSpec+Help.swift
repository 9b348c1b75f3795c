extension CommandSpec {
    /// `microapp solo FEATURE [options]`: the command, its operands, and `[options]` when it has any to show.
    package var usage: String {
        let options = visibleOptions.count > 1 ? ["[options]"] : []
        return ([name] + operands.map(\.synopsis) + options).joined(separator: " ")
    }

    /// The help: the usage line, the discussion, every visible option with its help, and the epilogue.
    package var help: String {
        var sections = ["usage: \(usage)"]
        if !discussion.isEmpty { sections.append(discussion) }
        sections.append("OPTIONS\n" + Self.optionLines(visibleOptions))
        if !epilogue.isEmpty { sections.append(epilogue) }
        return sections.joined(separator: "\n\n")
    }

    /// Each option as `  --name VALUE  help`, the help in a column; a help's later lines and a synopsis too long
    /// for the column continue under it.
    public static func optionLines(_ options: [Option]) -> String {
        let column = 2 + min(24, (options.map(\.synopsis.count).max() ?? 0) + 2)
        let indent = String(repeating: " ", count: column)
        return options.map { option in
            let head = "  " + option.synopsis
            let repeatable = if case .repeatable = option.kind { " (repeatable)" } else { "" }
            let lines = (option.help + repeatable).split(separator: "\n", omittingEmptySubsequences: false)
            let first =
                head.count + 2 <= column
                ? head + String(repeating: " ", count: column - head.count) + lines[0]
                : head + "  " + lines[0]
            return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
