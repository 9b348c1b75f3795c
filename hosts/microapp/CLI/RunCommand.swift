import DemoServices
import Foundation
import MicroappHost
import MicroappSDK
import MicroappTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `microapp run`: load, resolve and start the plugins, then hand the app to a front end.
enum RunCommand {
    @MainActor
    static func run(_ arguments: Arguments) async throws(UsageError) -> ExitCode {
        try arguments.allow(
            [
                "--plugins", "--only", "--open", "--ui", "--strict", "--no-build", "--no-probe", "--data",
                "--characters-url", "--home", "--watch",
            ])
        let ui = try FrontEnd.chosen(by: arguments)
        let set = try LoadedPluginSet.load(arguments, services: .live)
        if arguments.flag("--strict") && !set.problems.isEmpty {
            Console.report(set.problems)
            Console.err("microapp: \(set.problems.count) problem(s) with the plugin set; --strict stops here")
            return .invalidPluginSet
        }
        let runtime = AppRuntime(
            images: set.images, resolution: set.resolution, container: set.container,
            options: AppRuntime.Options(home: arguments.value("--home") ?? DemoContainer.home))
        let problems = set.problems + runtime.startProblems
        if arguments.flag("--strict") && !problems.isEmpty {
            Console.report(problems)
            return .invalidPluginSet
        }
        guard !runtime.runningFeatures.isEmpty else {
            Console.report(problems)
            Console.err(
                "microapp: no feature is left to run\n  to fix: build the plugins (`swift build`) or point --plugins at a folder of lib<Feature>.so files"
            )
            return .invalidPluginSet
        }
        runtime.open(arguments.value("--open"))
        // Scripts read problems as `error` lines and people see them in the footer; stderr keeps a copy
        // except in JSON mode, where stdout already carries them.
        runtime.announce(
            problems.map {
                Notice(level: .error, code: $0.code.rawValue, message: "\($0.subject): \($0.reason)", fix: $0.fix)
            })
        if ui != .json { Console.report(problems) }
        let watch =
            arguments.flag("--watch")
            ? PluginBuilder.watch(
                runtime, images: set.images,
                directories: PluginLocations.current().directories(adding: arguments.values("--plugins")),
                probing: !arguments.flag("--no-probe")) : nil
        await ui.run(runtime)
        watch?.stop()
        return .ok
    }
}
