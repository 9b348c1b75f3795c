import Foundation
import MicroappPlatform

/// `microapp feature-host --library FILE --scratch DIR` (internal, started by the host with `MICROAPP_INTERNAL=1`,
/// or forked by the zygote): one isolated feature's child. Standard input is the protocol socket; standard output
/// and error are pipes the host turns into log lines.
enum FeatureHostCommand {
    static func run(_ words: [String]) async -> Int32 {
        var options: [String: String] = [:]
        var rest = words[...]
        while let name = rest.popFirst(), let value = rest.popFirst() { options[name] = value }
        guard let library = options["--library"], let scratch = options["--scratch"] else {
            Console.err("microapp feature-host: --library FILE and --scratch DIR are required (internal command)")
            return 1
        }
        return await FeatureHostChild.run(descriptor: 0, library: library) {
            applySandbox(library: library, scratch: scratch)
        }
    }

    /// Confines this process before the library is mapped; answers why it could not, or nil. The one call the
    /// sandbox (`Sandbox.apply`, MicroappPlatform) plugs into.
    static func applySandbox(library: String, scratch: String) -> String? {
        nil
    }
}
