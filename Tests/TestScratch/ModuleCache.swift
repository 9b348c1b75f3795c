import Foundation

/// The Clang module cache of the compilers tests start (under the scratch root's `XDG_CACHE_HOME`), filled by one
/// compile before the first fixture compile of the process: compiles that start together on a cold cache each build
/// Glibc's and Foundation's modules themselves (about two seconds of CPU each, a dozen fixtures at once).
public enum ModuleCache {
    /// Fills the cache for fixtures built with `swiftc -swift-version 6` against the SDK beside the test runner, once
    /// per process; later calls return at once. Blocks while the compiler runs: call it off the cooperative pool.
    public static func warm() { _ = warmed }

    private static let warmed: Bool = {
        let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        let source = Scratch.folder("module-cache").appendingPathComponent("Imports.swift")
        try? "import CMicroappABI\nimport Foundation\nimport MicroappSDK\n".write(
            to: source, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swiftc", "-typecheck", "-swift-version", "6", "-I", build + "/Modules", "-Xcc",
            "-fmodule-map-file=\(build)/CMicroappABI.build/module.modulemap", source.path,
        ]
        process.environment = Scratch.childEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // A failure here shows again, with the compiler's output, in the fixture compile that follows.
        return CompilerSlots.run {
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }()
}
