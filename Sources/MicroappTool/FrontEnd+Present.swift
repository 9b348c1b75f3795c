import Foundation
import MicroappCore
import MicroappPlatform
import MicroappTerminal
import MicroappWeb

extension FrontEnd {
    /// Runs `driver` in this front end until the person quits. The web front end serves the app on 127.0.0.1 (the
    /// port `--port` names, else one the system picks) and prints the URL to open; an app process its supervisor
    /// restarted serves on the address recorded in `restartFolder`, so an open page reconnects by itself.
    @MainActor
    func present(
        _ driver: any AppDriver, appName: String, arguments: Arguments, settleTimeout: Duration, restartFolder: String?,
        graph: String? = nil, actions: [String: WebFrontEnd.Action] = [:], serving: ((WebFrontEnd) -> Void)? = nil
    ) async -> ExitCode {
        guard self == .web else {
            await run(driver, settleTimeout: settleTimeout, environment: arguments.environment.variables)
            return .ok
        }
        let record = restartFolder.map { $0 + "/web-address.json" }
        let recorded = record.flatMap { Files.contents($0) }.flatMap {
            try? JSONDecoder().decode(WebFrontEnd.Address.self, from: $0)
        }
        let web = WebFrontEnd(
            driver: driver, appName: appName,
            address: recorded ?? WebFrontEnd.Address(port: arguments[CommonOptions.port] ?? 0),
            drawing: graph.map { dot in
                let folder = arguments.environment.temporaryFolder
                return { try? GraphLayout.svg(fromDOT: dot, folder: folder) }
            }, actions: actions)
        do {
            try web.start()
        } catch {
            Console.err(error)
            return .usage
        }
        serving?(web)
        if let record, recorded == nil, let data = try? JSONEncoder().encode(web.address) {
            _ = Files.write(data, to: record)
        }
        Console.out("Open \(web.url) in a browser (ctrl-c stops the app)")
        await web.run()
        return .ok
    }
}
