import Foundation
import MicroappPlatform

/// What a Swift crash report (the runtime's backtrace, written with `SWIFT_BACKTRACE=…,output-to=FILE`) says about
/// where the process died: its headline and the code images of the crashed thread. Which of those images is a
/// plugin is for the caller to say, from the libraries it loaded: the report is read by full path, never by
/// guessing from file names (a plugin may be called `libAuth.so` in any folder, a hot-swapped copy has a name of
/// its own).
public struct CrashReport: Sendable, Equatable {
    /// The first line: `Program crashed: Illegal instruction at 0x…`.
    public var headline: String
    /// The image of each frame of the crashed thread, innermost first: the full path the report's image list gives
    /// for it, or the image's name when the list lacks it.
    public var crashedThreadImages: [String]

    /// Reads a crash report's text.
    public init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        headline =
            lines.first { $0.contains("Program crashed") }?
            .trimmingCharacters(in: CharacterSet(charactersIn: "* ")) ?? "the process crashed"
        let images = Self.images(lines)
        crashedThreadImages = Self.section(lines, after: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") })
            .compactMap { frame in
                guard let name = Self.image(inFrame: frame) else { return nil }
                // By address first: two libraries of the same name (`libAuth.so` in two folders) differ only there.
                let address = Self.address(inFrame: frame)
                return
                    (images.first { $0.name == name && address.map($0.range.contains) == true }
                    ?? images.first { $0.name == name })?.path ?? name
            }
    }

    /// The innermost frame of the crashed thread that ran in one of `libraries` (full paths, as loaded): the
    /// library at fault; nil when the crash was elsewhere (the host, the SDK, the toolchain) or there is no report.
    public func library(among libraries: some Sequence<String>) -> String? {
        let candidates = Set(libraries)
        return crashedThreadImages.first(where: candidates.contains)
    }

    /// The lines after the first line that `isHeader` accepts, blank lines first skipped, up to the next blank line.
    private static func section(_ lines: [String], after isHeader: (String) -> Bool) -> [String] {
        guard let start = lines.firstIndex(where: isHeader) else { return [] }
        return Array(lines[(start + 1)...].drop(while: \.isEmpty).prefix { !$0.isEmpty })
    }

    /// The image a frame line names: `  0   0x… symbol + 12 in libTrap.so at /src/Trap.swift:3:5` → `libTrap.so`.
    private static func image(inFrame line: String) -> String? {
        let code = line.range(of: " at /").map { line[..<$0.lowerBound] } ?? line[...]
        guard let range = code.range(of: " in ", options: .backwards) else { return nil }
        return code[range.upperBound...].split(separator: " ").first.map(String.init)
    }

    /// One line of the report's image list.
    private struct Image {
        var range: ClosedRange<UInt64>
        var name: String
        var path: String
    }

    /// The frame's address (`0x…`), the first hexadecimal word of the line.
    private static func address(inFrame line: String) -> UInt64? {
        line.split(separator: " ").lazy.compactMap(Self.hexadecimal).first
    }

    private static func hexadecimal(_ word: Substring) -> UInt64? {
        word.hasPrefix("0x") ? UInt64(word.dropFirst(2), radix: 16) : nil
    }

    /// The image list: `0x…–0x… <build id> libTrap.so /path/to/libTrap.so`, one image a line.
    private static func images(_ lines: [String]) -> [Image] {
        section(lines, after: { $0.hasPrefix("Images") }).compactMap { line in
            // The path is the rest of the line from its first " /" (an address or build id has no slash); the
            // name is the word before it. The kernel marks a file replaced since it was mapped as "(deleted)".
            guard let slash = line.range(of: " /"), let name = line[..<slash.lowerBound].split(separator: " ").last
            else { return nil }
            var path = String(line[line.index(after: slash.lowerBound)...]).trimmingCharacters(in: .whitespaces)
            if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
            let bounds = (line.split(separator: " ").first ?? "").split(whereSeparator: { $0 == "–" || $0 == "-" })
            guard bounds.count == 2, let low = hexadecimal(bounds[0]), let high = hexadecimal(bounds[1]), low <= high
            else { return Image(range: 0...0, name: String(name), path: path) }
            return Image(range: low...high, name: String(name), path: path)
        }
    }
}
