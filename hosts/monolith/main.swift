import Auth
import Characters
import DemoServices
import Foundation
import MicroappHost
import MicroappSDK
import MicroappTerminal
import Search
import Settings

// The demo app with its features linked in statically: no dlopen, no probe, no manifest decoding. It exists as
// the floor for `cold-start-benchmark` (plugin host vs monolith); `microapp` is the product.
//   monolith [--ui terminal|text|json] [--data DIR] [--open URL]

@MainActor
func runMonolith() async -> Int32 {
    var options: [String: String] = [:]
    var words = CommandLine.arguments.dropFirst()[...]
    while let word = words.popFirst() {
        guard ["--ui", "--data", "--open"].contains(word), let value = words.popFirst() else {
            FileHandle.standardError.write(
                Data("monolith: unknown argument \(word)\n  to fix: use --ui, --data or --open\n".utf8))
            return 1
        }
        options[word] = value
    }
    guard let frontEnd = FrontEnd.choose(options["--ui"]) else {
        FileHandle.standardError.write(Data("monolith: --ui takes terminal, text or json\n".utf8))
        return 1
    }
    let container: Container
    do {
        container = try DemoContainer.make(dataDirectory: options["--data"], charactersURL: nil)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        return 1
    }
    let features: [any Feature.Type] = [
        AuthFeature.self, CharactersFeature.self, SearchFeature.self, SettingsFeature.self,
    ]
    let sources = features.map(FeatureSource.linked)
    let resolution = DependencyResolver.resolve(
        sources.map { Candidate(manifest: $0.manifest, path: $0.origin) }, hostOffers: container.offers)
    let runtime = AppRuntime(
        sources: sources, resolution: resolution, container: container,
        options: AppRuntime.Options(home: DemoContainer.home))
    runtime.open(options["--open"])
    await frontEnd.run(runtime)
    return 0
}

exit(await runMonolith())
