import Foundation
import MicroappPlatform
import Synchronization

/// The commands SwiftPM planned for a package, from its build manifest (`<scratch>/<configuration>.yaml`): each
/// command's name (`C.Characters-x86_64-unknown-linux-gnu-debug.module`) with its `args` and `outputs`. A watched
/// feature is rebuilt many times against one plan and the manifest is large (≈ 400 KB), so a manifest is read once
/// per version of the file (its inode, size and modification time).
struct BuildPlan: Sendable {
    /// One planned command: its arguments and the files it writes, as the manifest's JSON arrays.
    struct Command: Sendable {
        /// `args: […]`, not yet decoded.
        var arguments: Substring = ""
        /// `outputs: […]`, not yet decoded.
        var outputs: Substring = ""
    }

    private let commands: [Substring: Command]

    /// The plan in the manifest at `path`, from the cache while the file is unchanged; nil when it cannot be read.
    static func read(_ path: String) -> BuildPlan? {
        guard let stamp = FileStamp.of(path: path) else { return nil }
        if let cached = cache.withLock({ $0[path] }), cached.stamp == stamp { return cached.plan }
        guard let text = Files.text(path) else { return nil }
        let plan = BuildPlan(manifest: text)
        cache.withLock { $0[path] = (stamp, plan) }
        return plan
    }

    private static let cache = Mutex<[String: (stamp: [Int], plan: BuildPlan)]>([:])

    /// Parses the `commands:` entries of a manifest: a `  "C.<name>":` line, then its indented keys.
    init(manifest: String) {
        var commands: [Substring: Command] = [:]
        var current: Substring?
        for line in manifest.split(separator: "\n") {
            if line.hasPrefix("  \"C.") && line.hasSuffix("\":") {
                current = line.dropFirst(3).dropLast(2)
                commands[current!] = Command()
            } else if let name = current, line.hasPrefix("    ") {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("args: ") {
                    commands[name]?.arguments = trimmed.dropFirst(6)
                } else if trimmed.hasPrefix("outputs: ") {
                    commands[name]?.outputs = trimmed.dropFirst(9)
                }
            } else {
                current = nil
            }
        }
        self.commands = commands
    }

    /// The arguments of the command named `C.<prefix>…<suffix>`, where what follows `prefix` does not name an entry
    /// module (`<Feature>Plugin-`); nil when there is none.
    func arguments(of prefix: String, suffix: String) -> [String]? {
        command(prefix, suffix).flatMap { Self.decode($0.arguments) }
    }

    /// The files the command named like `arguments(of:suffix:)` writes.
    func outputs(of prefix: String, suffix: String) -> [String]? {
        command(prefix, suffix).flatMap { Self.decode($0.outputs) }
    }

    private func command(_ prefix: String, _ suffix: String) -> Command? {
        commands.first { name, _ in
            name.hasPrefix("C." + prefix) && name.hasSuffix(suffix)
                && !name.dropFirst(2 + prefix.count).contains("Plugin-")
        }?.value
    }

    private static func decode(_ array: Substring) -> [String]? {
        array.isEmpty ? nil : try? JSONDecoder().decode([String].self, from: Data(array.utf8))
    }
}
