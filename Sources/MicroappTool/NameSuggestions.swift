import CommandLineSpec
import Foundation
import MicroappDigest
import MicroappPlatform
import MicroappShipping

/// Did-you-mean for the names a person types besides commands: a signing key, a channel's scheme, a feature folder.
enum NameSuggestions {
    /// The private key `name` (`--key`); a missing one is refused naming the key meant (`tema` → `team`) or the keys
    /// there are, before the fix to make one.
    static func signingKey(_ name: String, in folders: ReleaseFolders) throws(Problem) -> Ed25519.PrivateKey {
        switch ReleaseKeyFile.read(name, in: folders) {
        case .success(let key): return key
        case .failure(var problem):
            guard problem.code == .noKey else { throw problem }
            let keys = Files.names(in: folders.keys).filter { $0.hasSuffix(".key") }.map { String($0.dropLast(4)) }
            if let meant = NearMiss.closest(to: name, among: keys) {
                problem.fix = "did you mean --key \(meant)? Otherwise \(problem.fix)"
            } else if !keys.isEmpty {
                problem.fix += " (your keys: \(keys.sorted().joined(separator: ", ")))"
            }
            throw problem
        }
    }

    /// `text` as a channel, refused when it is a URL whose scheme is none a channel has (`htp://…`, which would
    /// otherwise be read as a folder of that name).
    static func channel(_ text: String, currentDirectory: String) throws(Problem) -> ChannelSource {
        if let separator = text.range(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            let schemes = ["http", "https", "file"]
            if !schemes.contains(scheme), scheme.allSatisfy({ $0.isLetter }) {
                let meant = NearMiss.closest(to: scheme, among: schemes)
                throw Problem.usage(
                    "--channel \(text): \(scheme):// is not a channel's scheme (http, https or file)",
                    fix: meant.map { "did you mean `\($0)\(text[separator.lowerBound...])`?" }
                        ?? "write an http(s):// URL or a folder")
            }
        }
        return ChannelSource(text, currentDirectory: currentDirectory)
    }
}
