import Foundation

/// Where a benchmark runs: the SwiftPM build folder of its executable, which holds `libMicroappSDK.so`, the SDK's
/// Swift module and the module map of its C header (`swift run -c release <benchmark>` puts them there).
public struct BuildFolder: Sendable {
    /// The folder itself.
    public let path: String

    /// The folder of the running executable, checked for what a plugin build needs.
    public static func current() throws -> BuildFolder {
        let folder = BuildFolder(path: (currentExecutable as NSString).deletingLastPathComponent)
        for needed in [folder.sdkLibrary, folder.modules + "/MicroappSDK.swiftmodule", folder.abiModuleMap]
        where !FileManager.default.fileExists(atPath: needed) {
            let name = (currentExecutable as NSString).lastPathComponent
            throw BenchmarkError(
                "\(needed) is missing; run the benchmark with `swift run -c release \(name)` so SwiftPM builds the SDK beside it"
            )
        }
        return folder
    }

    /// The running executable, symbolic links resolved.
    public static var currentExecutable: String {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return URL(fileURLWithPath: link ?? CommandLine.arguments[0]).resolvingSymlinksInPath().path
    }

    /// The SDK library every plugin links.
    public var sdkLibrary: String { path + "/libMicroappSDK.so" }
    /// Swift modules of the build (`MicroappSDK.swiftmodule`).
    public var modules: String { path + "/Modules" }
    /// The module map of `CMicroappABI`, which the SDK's module imports (without it swiftc reports
    /// "missing required module 'CMicroappABI'").
    public var abiModuleMap: String { path + "/CMicroappABI.build/module.modulemap" }
    /// Another executable product of the same build (`microapp`).
    public func executable(_ name: String) -> String { path + "/" + name }
}

/// Why a benchmark could not run (not a timing verdict: the benchmarks never fail on time).
public struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
