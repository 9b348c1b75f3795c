import Foundation

/// A path's last component and its folder, as `NSString`'s `lastPathComponent` and `deletingLastPathComponent` give
/// them, cut at the last `/` for a plain path: those cost ~30 000 instructions a call in Foundation on Linux (they
/// rebuild the path through `NSString`), and the loader asks them several times per library at every start.
package enum PathParts {
    /// The last component of `path` (`libAuth.so` of `/x/libAuth.so`).
    package static func name(of path: String) -> String {
        guard let cut = plainCut(path) else { return (path as NSString).lastPathComponent }
        return cut.map { String(path.utf8[path.utf8.index(after: $0)...])! } ?? path
    }

    /// The folder of `path` (`/x` of `/x/libAuth.so`, `/` of `/libAuth.so`, empty for a bare name).
    package static func folder(of path: String) -> String {
        guard let cut = plainCut(path) else { return (path as NSString).deletingLastPathComponent }
        guard let cut else { return "" }
        return cut == path.utf8.startIndex ? "/" : String(path.utf8[..<cut])!
    }

    /// The index of the last `/` of a plain path (nil inside: no `/` at all); nil outside when the path is not
    /// plain — empty, ending in `/`, or with `//` — and `NSString` decides.
    private static func plainCut(_ path: String) -> String.Index?? {
        var text = path
        let offset = text.withUTF8 { bytes -> Int?? in
            guard let last = bytes.last, last != UInt8(ascii: "/") else { return nil }
            var cut: Int?
            for index in bytes.indices where bytes[index] == UInt8(ascii: "/") {
                if index > 0 && bytes[index - 1] == UInt8(ascii: "/") { return nil }
                cut = index
            }
            return .some(cut)
        }
        guard let offset else { return nil }
        return .some(offset.map { path.utf8.index(path.utf8.startIndex, offsetBy: $0) })
    }
}
