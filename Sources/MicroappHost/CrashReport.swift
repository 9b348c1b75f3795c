import Foundation

/// What a Swift crash report (the runtime's backtrace, written with `SWIFT_BACKTRACE=…,output-to=FILE`) says about
/// which plugin library was running when the process died.
public struct CrashReport: Sendable, Equatable {
    /// The first line: `Program crashed: Illegal instruction at 0x…`.
    public var headline: String
    /// The file name of the plugin library in the crashed thread's innermost frame that is a plugin
    /// (`libCharacters.so`; a hot-swapped copy `libCharacters-3.so` is named as `libCharacters.so`), if any.
    public var pluginLibrary: String?

    /// Libraries that are the toolchain, the system or the SDK: never the plugin at fault.
    private static let platformPrefixes = [
        "libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "libMicroappSDK", "libc.", "libm.", "libstdc++",
        "libgcc", "libicu", "libxml", "libcurl", "libz.", "libsqlite3", "libcrypt",
    ]

    /// Reads a crash report's text.
    public init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        headline =
            lines.first { $0.contains("Program crashed") }?
            .trimmingCharacters(in: CharacterSet(charactersIn: "* ")) ?? "the process crashed"
        // Frames of the crashed thread read `  0   0x… symbol + 12 in libTrap.so`, up to the first blank line.
        var frames: [String] = []
        if let start = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) {
            for line in lines[(start + 1)...].drop(while: \.isEmpty) {
                if line.isEmpty { break }
                frames.append(line)
            }
        }
        pluginLibrary = frames.lazy.compactMap(Self.library(inFrame:)).first
    }

    /// The plugin library a frame line names, with a hot-swap copy's `-N` removed.
    private static func library(inFrame line: String) -> String? {
        guard let range = line.range(of: " in ", options: .backwards) else { return nil }
        let image = line[range.upperBound...].split(separator: " ").first.map(String.init) ?? ""
        guard image.hasPrefix("lib"), image.hasSuffix(".so"),
            !platformPrefixes.contains(where: image.hasPrefix)
        else { return nil }
        let stem = image.dropLast(3)
        if let dash = stem.lastIndex(of: "-"), stem[stem.index(after: dash)...].allSatisfy(\.isNumber),
            stem.index(after: dash) < stem.endIndex
        {
            return String(stem[..<dash]) + ".so"
        }
        return image
    }
}
