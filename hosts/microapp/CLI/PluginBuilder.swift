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

    /// The feature folders in `Plugins/` (or only `only`) whose library is missing or older than a source file.
    func staleFeatures(only: String? = nil) -> [StaleFeature] {
        guard let repository = locations.repository else { return [] }
        let plugins = repository.appendingPathComponent("Plugins")
        let names =
            only.map { [$0] } ?? ((try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []).sorted()
        let sdkChange = newestModification(in: repository.appendingPathComponent("Sources/MicroappSDK"))
        return names.compactMap { name in
            let folder = plugins.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources").path) else {
                return nil
            }
            let library = locations.executableDirectory.appendingPathComponent("lib\(name).so")
            guard let linked = modification(of: library) else { return StaleFeature(name: name, isMissing: true) }
            let built = max(linked, modification(of: stamp(of: name)) ?? .distantPast)
            // Only what goes into the library: a changed test or golden preview must not look like a stale build.
            let sources = ["Sources", "Entry"].map { newestModification(in: folder.appendingPathComponent($0)) }
            let newest = max(sources.max() ?? .distantPast, sdkChange)
            return newest > built ? StaleFeature(name: name, isMissing: false) : nil
        }
    }

    /// Builds what is stale with `swift build`, its output on stderr; returns false if the build failed.
    func refresh() -> Bool {
        let stale = staleFeatures()
        guard !stale.isEmpty else { return true }
        let list = stale.map { $0.name + ($0.isMissing ? " (missing)" : " (changed)") }.joined(separator: ", ")
        Console.err("microapp: building plugin libraries: \(list) …")
        return build(products: stale.count == 1 ? [stale[0].name] : [], newFolder: stale.contains(where: \.isMissing))
    }

    /// Builds the library of the feature in `Plugins/<name>` alone (`swift build --product <name>`), when it is
    /// missing or older than its sources; returns false if the build failed.
    func build(feature name: String) -> Bool {
        guard let stale = staleFeatures(only: name).first else { return true }
        Console.err("microapp: building \(name) alone (\(stale.isMissing ? "missing" : "changed")) …")
        return build(products: [name], newFolder: stale.isMissing)
    }

    /// Runs `swift build` for `products` (all when empty) in the repository, its output on stderr.
    ///
    /// SwiftPM caches the evaluated Package.swift by its contents, and its build plan by the manifest's date: a new
    /// folder in Plugins/ is only seen with `--manifest-cache none` after touching Package.swift.
    private func build(products: [String], newFolder: Bool) -> Bool {
        guard let repository = locations.repository else { return true }
        var arguments = ["swift", "build", "-c", locations.configuration]
        if newFolder {
            arguments += ["--manifest-cache", "none"]
            let manifest = repository.appendingPathComponent("Package.swift").path
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: manifest)
        }
        for product in products { arguments += ["--product", product] }
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
        // SwiftPM does not relink a library whose objects came out the same (a touched file, a comment): the stamp
        // says it was built from the sources as they were when the build started, so the next run does not build it
        // again (and a file saved during the build still counts as changed).
        for name in products.isEmpty ? staleFeatures().map(\.name) : products {
            _ = FileManager.default.createFile(
                atPath: stamp(of: name).path, contents: Data(), attributes: [.modificationDate: started])
        }
        return true
    }

    /// `lib<name>.so.built` beside the library: when its sources were last built (not a `.so`, so never loaded).
    private func stamp(of name: String) -> URL {
        locations.executableDirectory.appendingPathComponent("lib\(name).so.built")
    }

    private func modification(of url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    private func newestModification(in folder: URL) -> Date {
        var newest = Date.distantPast
        let files = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
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
