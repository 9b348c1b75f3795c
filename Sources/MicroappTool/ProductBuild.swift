import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappPlatform

/// One `swift build -c CONFIGURATION --product NAME` run by a command (`release`, `install`, `bundle`), its output
/// passed on to stderr as it comes: one product, never the whole package (a plain `swift build` also links every
/// benchmark, the fuzzers and the monolith).
enum ProductBuild {
    /// Builds `product` in `package` into `buildDirectory` (the folder of `configuration`'s products); the command
    /// run, or a refusal: `build-not-started` with `notStarted` as its fix when `swift build` could not start,
    /// `build-failed` with `fix` when it failed.
    @discardableResult
    static func run(
        _ product: String, in package: String, buildDirectory: String, configuration: String,
        environment: HostEnvironment, fix: String,
        notStarted: String = "put the Swift toolchain on PATH"
    ) throws(Problem) -> String {
        let builder = PluginBuilder(
            repository: package, buildDirectory: buildDirectory, configuration: configuration, environment: environment)
        let result: (status: Int32, output: String, command: String)
        do {
            result = try builder.swiftBuild(product: product, echo: FileHandle.standardError.fileDescriptor)
        } catch {
            throw Problem(
                code: .buildNotStarted, subject: package,
                reason: "could not start `swift build`: \(error.problem.reason)",
                fix: notStarted)
        }
        guard result.status == 0 else {
            throw Problem(
                code: .buildFailed, subject: package,
                reason: "`\(result.command)` failed (exit \(result.status))",
                fix: fix)
        }
        return result.command
    }
}
