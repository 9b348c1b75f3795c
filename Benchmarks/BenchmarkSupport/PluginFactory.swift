import Foundation

/// Makes any number of distinct plugin files from one Swift plugin compiled once.
///
/// How N distinct features are made, and why: one real Swift plugin (a `Feature` registered through
/// `MicroappEntry.export`, linked against this build's `libMicroappSDK.so`) is compiled once with `swiftc -O`
/// (the benchmark prints how long it took). Its feature id is a fixed-width placeholder of 30 bytes; Swift keeps string literals of 16 bytes or
/// more as plain UTF-8 bytes in the image (shorter ones are packed into the `String` value itself, so they could
/// not be found and patched). Each copy replaces every occurrence (the id, the scheme of its routes, its display
/// name and tab title: the host wants names unique across the running set) with
/// `bench-` and a zero-padded number of the same width, and is written to a new path, so it is a new file the
/// dynamic loader maps and relocates in full, describing a feature no other copy has: the same work as a separately
/// compiled plugin of the same size. Compiling 200+ plugins instead would cost a compile each and measure nothing more.
/// Writing a copy takes microseconds and happens outside the timed sections.
public struct PluginFactory {
    /// The placeholder feature id compiled into the template.
    public static let placeholder = "bench-" + String(repeating: "z", count: 24)

    /// The host services every copy requires (as `Service<Nothing, Nothing>`), besides the session, read only.
    public static let hostServices = ["bench.page", "bench.detail"]

    private let folder: String
    private let template: [UInt8]
    private let offsets: [Int]
    private var made = 0

    /// Compiles the template plugin into `folder` (created if needed); with `compiled`, takes that library (a template
    /// an earlier run kept, e.g. for a run under valgrind, which cannot start `swiftc`) instead.
    public init(build: BuildFolder, folder: String, compiled: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        let library = compiled ?? folder + "/libBenchTemplate.so"
        if compiled == nil { try Self.compile(build: build, folder: folder, into: library) }
        guard let bytes = FileManager.default.contents(atPath: library) else {
            throw BenchmarkError("the benchmark plugin \(library) cannot be read")
        }
        template = [UInt8](bytes)
        offsets = Self.occurrences(of: Array(Self.placeholder.utf8), in: template)
        guard !offsets.isEmpty else {
            throw BenchmarkError("the placeholder id was not found as bytes in \(library); it cannot be patched")
        }
    }

    /// Compiles the template plugin's source in `folder` into `library`.
    private static func compile(build: BuildFolder, folder: String, into library: String) throws {
        let source = folder + "/BenchPlugin.swift"
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let (status, output) = try run(
            "/usr/bin/env",
            [
                "swiftc", "-emit-library", "-O", "-swift-version", "6", "-module-name", "BenchPlugin",
                "-I", build.modules, "-Xcc", "-fmodule-map-file=\(build.abiModuleMap)",
                "-L", build.path, "-lMicroappSDK", "-Xlinker", "-rpath", "-Xlinker", build.path,
                source, "-o", library,
            ])
        guard status == 0 else {
            throw BenchmarkError("swiftc could not build the benchmark plugin (status \(status)):\n\(output)")
        }
    }

    /// How many places in the image were patched per copy.
    public var patchedPlaces: Int { offsets.count }
    /// Size of one plugin file.
    public var librarySize: Int { template.count }

    /// The feature id of copy `number`: the placeholder's width, digits instead of `z`.
    public static func featureID(_ number: Int) -> String {
        let digits = String(number)
        return "bench-" + String(repeating: "0", count: 24 - digits.count) + digits
    }

    /// Writes `count` new copies, each with its own feature id, at paths never used before (in `subfolder` of the
    /// factory's folder when given, created if needed); returns the paths and the ids.
    public mutating func copies(_ count: Int, in subfolder: String? = nil) throws -> [(path: String, id: String)] {
        let folder = subfolder.map { self.folder + "/" + $0 } ?? self.folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try (0..<count).map { _ in
            made += 1
            let id = Self.featureID(made)
            var bytes = template
            let replacement = Array(id.utf8)
            for offset in offsets { bytes.replaceSubrange(offset..<offset + replacement.count, with: replacement) }
            let path = folder + "/libBench-\(made).so"
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw BenchmarkError("could not write \(path)")
            }
            return (path, id)
        }
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard let first = needle.first, haystack.count >= needle.count else { return [] }
        var found: [Int] = []
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) {
                found.append(index)
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }

    private static let source = """
        import MicroappSDK

        /// A feature shaped like the demo's (two routes behind sign-in, two host services, the session read only, a
        /// tab); only its identity and its manifest matter to the benchmark, it is never started.
        public enum BenchFeature: Feature {
            public static let manifest = FeatureManifest(
                id: "\(placeholder)", version: 1, displayName: "\(placeholder)",
                routes: [
                    RouteDeclaration("\(placeholder)://home", requiresSession: true),
                    RouteDeclaration("\(placeholder)://detail/{id}", requiresSession: true),
                ],
                requirements: [
                    DependencyKey<Service<Nothing, Nothing>>.service("\(hostServices[0])").requirement,
                    DependencyKey<Service<Nothing, Nothing>>.service("\(hostServices[1])").requirement,
                    DependencyKey<Session?>.session(access: .read).requirement,
                ],
                tab: TabDeclaration(title: "\(placeholder)", route: "\(placeholder)://home", order: 10))

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                throw DependencyError(key: "none", reason: "the benchmark never starts features", fix: "none")
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(BenchFeature.self)
        }

        """
}

/// Runs a tool and returns its exit status and combined output.
public func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}
