import Foundation
import MicroappCore
import MicroappIsolation
import MicroappPlatform

/// `microapp feature-host --library FILE --scratch DIR [--mocks JSON] [--network granted]` (internal, started by the host with
/// `MICROAPP_INTERNAL=1`, or forked by the zygote): one isolated feature's child, on its own mocks (`solo`) with
/// `--mocks`. Standard input is the protocol socket; standard output and error are pipes the host turns into log
/// lines.
enum IsolatedServerCommand {
    @MainActor
    static func run(_ words: [String], environment: HostEnvironment) async -> Int32 {
        var options: [String: String] = [:]
        var rest = words[...]
        while let name = rest.popFirst(), let value = rest.popFirst() { options[name] = value }
        guard let library = options["--library"], let scratch = options["--scratch"] else {
            Console.err("microapp feature-host: --library FILE and --scratch DIR are required (internal command)")
            return 1
        }
        var mocks: [String: String]?
        if let text = options["--mocks"] {
            guard let choices = MockChoices.decode(text) else {
                Console.err("microapp feature-host: --mocks takes a JSON object of strings (internal command)")
                return 1
            }
            mocks = choices
        }
        let network = options["--network"] == IsolatedLaunch.network[1]
        return await IsolatedServer.run(descriptor: 0, library: library, mocks: mocks) {
            applySandbox(
                library: library, scratch: scratch, network: network,
                bestEffort: environment["MICROAPP_ALLOW_UNSANDBOXED"] == "1", environment: environment)
        }
    }

    /// Moves this process into namespaces of its own (`ProcessNamespaces.enter`: its own PID namespace and /proc)
    /// unless `environment` turns them off (`MICROAPP_NAMESPACES=0`); this process then only waits for the one inside,
    /// which goes on from here. What the kernel refuses every child the host says once (`ProcessNamespaces.notice`);
    /// what went wrong in this process alone is a line on its stderr, naming `command`.
    static func enterNamespaces(_ environment: HostEnvironment, command: String) {
        guard environment[ProcessNamespaces.variable] != "0", let refusal = ProcessNamespaces.enter(),
            [.threads, .fork].contains(refusal.step)
        else { return }
        Console.err("microapp \(command): no namespaces of its own: \(refusal.reason); to fix: \(refusal.fix)")
    }

    /// Moves into the scratch folder and confines this process before the library is mapped (`Sandbox.apply` with the
    /// feature's policy: read the
    /// library's private copy and the runtime, write the scratch folder, network only when the host granted it);
    /// answers why it could not, or nil. `bestEffort` (`MICROAPP_ALLOW_UNSANDBOXED=1`, set by the host for
    /// `--allow-unsandboxed`) skips what the kernel lacks. It first moves into namespaces of its own
    /// (`enterNamespaces`), where the kernel lets it and `environment` does not turn them off.
    static func applySandbox(
        library: String, scratch: String, network: Bool, bestEffort: Bool, environment: HostEnvironment
    ) -> String? {
        enterNamespaces(environment, command: "feature-host")
        var policy = SandboxPolicy.feature(library: library, scratch: scratch, network: network)
        policy.bestEffort = bestEffort
        func text(_ problem: Problem) -> String { "\(problem.reason); to fix: \(problem.fix)" }
        do {
            // Spawned or forked from the zygote, the child starts in its scratch folder.
            try Sandbox.enter(scratch)
        } catch {
            return text(error.problem)
        }
        do {
            try Sandbox.apply(policy)
            return nil
        } catch {
            return text(error.problem)
        }
    }
}
