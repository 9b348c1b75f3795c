// Text that came from outside (plugin manifests, file names, feature screens) is shown to people on terminals: its
// control characters are replaced so that it can never move the cursor or change colours by itself. The one
// sanitizer the engine, the CLI and the terminal front end share.

extension Character {
    /// True for C0/C1 control characters (escape, tab, newline, delete…).
    public var isControl: Bool { unicodeScalars.contains { $0.properties.generalCategory == .control } }
}

extension String {
    /// The string with control characters (escape, tab, newline…) replaced: tabs by a space, others dropped.
    public var sanitized: String {
        guard contains(where: \.isControl) else { return self }
        return String(compactMap { $0.isControl ? ($0.isWhitespace ? " " : nil) : $0 })
    }
}
