/// How a piece of a terminal line is drawn.
enum SpanStyle: Equatable, Sendable {
    case plain, bold, dim, error, success
    /// The focused element: reverse video.
    case focused
    /// The host's mark on an untrusted feature's screen: bold yellow reverse video, which feature text (control
    /// characters removed) cannot draw.
    case untrusted

    /// The SGR attributes that start the style.
    var sgr: String {
        switch self {
        case .plain: ""
        case .bold: "\u{1B}[1m"
        case .dim: "\u{1B}[2m"
        case .error: "\u{1B}[31m"
        case .success: "\u{1B}[32m"
        case .focused: "\u{1B}[7m"
        case .untrusted: "\u{1B}[1;7;33m"
        }
    }
}

/// A run of text in one style.
struct Span: Equatable, Sendable {
    var text: String
    var style: SpanStyle

    init(_ text: String, _ style: SpanStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One line of the terminal UI: styled runs, drawn with ANSI attributes or, with NO_COLOR, as plain text.
struct StyledLine: Equatable, Sendable {
    var spans: [Span]

    init(_ spans: [Span] = []) {
        self.spans = spans
    }

    init(_ text: String, _ style: SpanStyle = .plain) {
        self.spans = [Span(text, style)]
    }

    /// The text without styles.
    var text: String { spans.map(\.text).joined() }

    /// Columns the line takes.
    var displayWidth: Int { spans.reduce(0) { $0 + $1.text.displayWidth } }

    /// The line followed by `other`.
    static func + (line: StyledLine, other: StyledLine) -> StyledLine {
        StyledLine(line.spans + other.spans)
    }

    /// Cut to `width` columns (the last visible character becomes `…` when something was cut).
    func truncated(toWidth width: Int) -> StyledLine {
        guard displayWidth > width else { return self }
        var result: [Span] = []
        var room = width
        for span in spans {
            guard room > 0 else { break }
            let isLastThatFits = span.text.displayWidth >= room
            let text = isLastThatFits ? span.text.truncated(toWidth: room) : span.text
            result.append(Span(text, span.style))
            room -= text.displayWidth
            if isLastThatFits { break }
        }
        return StyledLine(result)
    }

    /// Padded with plain spaces to `width` columns.
    func padded(toWidth width: Int) -> StyledLine {
        let missing = width - displayWidth
        return missing > 0 ? self + StyledLine(String(repeating: " ", count: missing)) : self
    }

    /// The line as terminal output: attributes when `color` is true, plain text otherwise.
    func rendered(color: Bool) -> String {
        guard color else { return text }
        return spans.map { $0.style == .plain ? $0.text : $0.style.sgr + $0.text + "\u{1B}[0m" }.joined()
    }
}
