import Synchronization

/// The command people type to run this host (`microapp`, `hello-host`). The tool's messages, help, fixes and "next:"
/// lines are written with `microapp`; `Console` says each of them with this name, so a team's own host speaks its own
/// name, in messages written later too. Set once by `MicroappTool.dispatch` from `HostConfiguration.commandName`.
enum ProgramName {
    /// The name the tool's texts are written with.
    static let written = "microapp"

    private static let current = Mutex(written)

    /// The name messages say now.
    static var name: String { current.withLock { $0 } }

    /// Makes `name` the one messages say from now on.
    static func use(_ name: String) { current.withLock { $0 = name } }

    private static let typedCommand = Mutex<String?>(nil)

    /// Makes `command` (`NewCommand.invocation`: the name when that name on PATH is this executable, else its full
    /// path) the one fixes say from now on.
    static func useTyped(_ command: String) { typedCommand.withLock { $0 = command } }

    /// `text` (a fix) with each command as a person can type it in any folder: the full path of this executable
    /// unless its name on PATH is this executable (run from a checkout with `swift run`, a bare `microapp` is
    /// `command not found`); `swift run microapp …` stays as it is, said with the host's name.
    static func typed(_ text: String) -> String { typed(text, as: typedCommand.withLock { $0 }, name: name) }

    /// `text` with each command said as `command` (nil or `microapp`: as `name`), `swift run microapp` as `name`.
    static func typed(_ text: String, as command: String?, name: String) -> String {
        guard let command, command != written else { return spoken(text, as: name) }
        let kept = "\u{1}"
        let protected = ["swift run -c release ", "swift run "].reduce(text) {
            $0.replacingOccurrences(of: $1 + written, with: $1 + kept)
        }
        return spoken(spoken(protected, as: command).replacingOccurrences(of: kept, with: written), as: name)
    }

    /// `text` with the command said as `name` (unchanged when `name` is the written one): the word `microapp` where it
    /// is the command (`` `microapp doctor` ``, `swift run microapp`, a leading `microapp:`, `this microapp`), not
    /// part of a path, file, key or marker (`~/.config/microapp/`, `microapp.h`, `microapp-bundle`, `"microapp"`,
    /// `// microapp: features begin`).
    static func spoken(_ text: String, as name: String = ProgramName.name) -> String {
        guard name != written else { return text }
        var result = ""
        var rest = text[...]
        while let found = rest.range(of: written) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
            let tail = text[found.upperBound...].prefix(2)
            // `microapp.h` is a file; `… in microapp.` ends a sentence.
            let after = tail.first == "." && tail.dropFirst().first?.isLetter != true ? nil : tail.first
            let marker = text[..<found.lowerBound].hasSuffix("// ")
            let isCommand = !marker && !isPartOfName(before) && !isPartOfName(after)
            result += rest[..<found.lowerBound] + (isCommand ? name : written)
            rest = text[found.upperBound...]
        }
        return result + rest
    }

    /// True for a character that makes the word next to it part of a longer name or a path.
    private static func isPartOfName(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || "_/.-\"".contains(character)
    }
}
