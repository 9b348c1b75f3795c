import Auth
import Characters
import CommandLineSpec
import DemoServices
import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import MicroappTerminal
import Search
import Settings

// The demo app with its features linked in statically: no dlopen, no probe, no manifest decoding. It exists as
// the floor for `cold-start-benchmark` (plugin host vs monolith); `microapp` is the product.
let command = CommandSpec(
    "monolith", summary: "the demo app with its features linked statically (the cold-start floor)",
    options: [
        .value("--ui", "MODE", help: "terminal (default on a terminal), text or json, as for `microapp run`"),
        .value("--data", "DIR", help: "where accounts, recent searches and the session live"),
        .value("--open", "URL", help: "start at this route"),
    ],
    discussion: "The features of `microapp run`, linked in: no dlopen, no probe, no manifest decoding.")

@MainActor
func runMonolith() async -> Int32 {
    let options = command.parseOrExit(Array(CommandLine.arguments.dropFirst()))
    // The composition root: the process's environment, read once here.
    let environment = HostEnvironment.process
    guard let frontEnd = FrontEnd.choose(options.value("--ui")) else {
        try? FileHandle.standardError.write(contentsOf: Data("monolith: --ui takes terminal, text or json\n".utf8))
        return 1
    }
    let container: Container
    do {
        container = try await DemoContainer.open(
            dataDirectory: options.value("--data"), charactersURL: nil, environment: environment)
    } catch {
        try? FileHandle.standardError.write(contentsOf: Data("\(error)\n".utf8))
        return 1
    }
    let features: [any Feature.Type] = [
        AuthFeature.self, CharactersFeature.self, SearchFeature.self, SettingsFeature.self,
    ]
    let sources = features.map(FeatureSource.linked)
    let resolution = DependencyResolver.resolve(
        sources.map { Candidate(manifest: $0.manifest, path: $0.origin, trust: .own) }, hostOffers: container.offers)
    let runtime = AppRuntime(
        sources: sources, resolution: resolution, container: container,
        options: AppRuntime.Options(home: DemoContainer.home, now: environment.now))
    runtime.open(options.value("--open"))
    await frontEnd.run(runtime, environment: environment.variables)
    return 0
}

exit(await runMonolith())
