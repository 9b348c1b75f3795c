import Foundation

/// Rebuilds the plugin libraries that are missing or older than their sources, when run from the repository.
/// `swift run microapp` builds only the executable; this makes it build the features too.
struct PluginBuilder {
    let locations: PluginLocations

    /// A feature folder whose library needs building, and why.
    struct StaleFeature {
        let name: String
        let isMissing: Bool
    }

    /// The feature folders in `Plugins/` whose library is missing or older than a source file.
    func staleFeatures() -> [StaleFeature] {
        guard let repository = locations.repository else { return [] }
        let plugins = repository.appendingPathComponent("Plugins")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []).sorted()
        let sdkChange = newestModification(in: repository.appendingPathComponent("Sources/MicroappSDK"))
        return names.compactMap { name in
            let folder = plugins.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources").path) else {
                return nil
            }
            let library = locations.executableDirectory.appendingPathComponent("lib\(name).so")
            guard let built = modification(of: library) else { return StaleFeature(name: name, isMissing: true) }
            let newest = max(newestModification(in: folder), sdkChange)
            return newest > built ? StaleFeature(name: name, isMissing: false) : nil
        }
    }

    /// Builds what is stale with `swift build`, its output on stderr; returns false if the build failed.
    func refresh() -> Bool {
        let stale = staleFeatures()
        guard !stale.isEmpty, let repository = locations.repository else { return true }
        let list = stale.map { $0.name + ($0.isMissing ? " (missing)" : " (changed)") }.joined(separator: ", ")
        Console.err("microapp: building plugin libraries: \(list) …")
        var arguments = ["swift", "build", "-c", locations.configuration]
        // SwiftPM caches the evaluated Package.swift: a new folder in Plugins/ is only seen without the cache.
        if stale.contains(where: \.isMissing) { arguments += ["--manifest-cache", "none"] }
        if stale.count == 1 { arguments += ["--product", stale[0].name] }
        let started = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = repository
        // Never let the build write to stdout: in `--ui json` mode stdout carries only JSON lines.
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            Console.err("microapp: could not start `swift build`: \(error)\n  to fix: put the Swift toolchain on PATH")
            return false
        }
        guard process.terminationStatus == 0 else {
            Console.err(
                "microapp: `\(arguments.joined(separator: " "))` failed (exit \(process.terminationStatus))\n  to fix: fix the compiler errors above; the libraries built before still load"
            )
            return false
        }
        Console.err(String(format: "microapp: plugins built in %.1f s", Date().timeIntervalSince(started)))
        return true
    }

    private func modification(of url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    private func newestModification(in folder: URL) -> Date {
        var newest = Date.distantPast
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
        while let file = files?.nextObject() as? URL {
            if file.lastPathComponent.hasPrefix(".") {
                files?.skipDescendants()
                continue
            }
            if let date = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate {
                newest = max(newest, date)
            }
        }
        return newest
    }
}
