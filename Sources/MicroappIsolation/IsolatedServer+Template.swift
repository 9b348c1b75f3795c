import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK

extension IsolatedServer {
    /// In the template isolated children are forked from, once before its first fork (it starts no thread): the work
    /// each child repeated before its first screen that does not depend on its library — the sandbox's runtime paths
    /// and the debug runtime (`SandboxPolicy.prepareForkTemplate`), a manifest's coding, a round trip of every
    /// protocol message — whose Swift metadata, conformances, type lookups and bound calls each child then inherits —,
    /// and whether this kernel gives children namespaces (`ProcessNamespaces.fork` asks it).
    public static func prepareTemplate() {
        SandboxPolicy.prepareForkTemplate()
        ProcessNamespaces.prepareForkTemplate()
        let service = DependencyKey<Service<String, String>>.service("template.service")
        let manifest = FeatureManifest(
            id: "template", version: 1, displayName: "Template", routes: [RouteDeclaration("template://home")],
            requirements: [
                Requirement(service), Requirement(DependencyKey<String>.state("template.state", access: .read)),
            ],
            provides: [
                Provision(DependencyKey<Service<String, String>>.service("template.provided"), uses: [service.id])
            ],
            hasMocks: true, tab: TabDeclaration(title: "Template", route: "template://home", order: 0),
            capabilities: [.scratchFiles])
        let text = (try? ManifestCoding.encode(manifest)) ?? ""
        _ = try? ManifestCoding.decode(text)
        // As the channel's reader thread takes them: slices of its read buffer.
        var reader = FeatureFrameReader()
        var screens: [Location: Screen] = [:]
        for message in sampleMessages(manifest: text) {
            let frame = [UInt8](FeatureWire.encode(message))
            reader.append(frame[..<frame.count])
            if case .screenUpdate(let location, let screen) = try? reader.next() { screens[location] = screen }
        }
        // The server's own metadata (its fields' generic types too), and its calls' table, which each child made.
        _ = String(describing: IsolatedServer.self) + String(describing: ServiceCalls()) + "\(screens.count)"
    }

    /// One message of each kind, as either side sends it.
    private nonisolated static func sampleMessages(manifest: String) -> [FeatureMessage] {
        let location = Location(url: "template://home", pattern: "template://home")
        let screen = Screen(
            title: "Template",
            content: [
                .text(Text("text")), .button(Button(id: "button", title: "Button")),
                .field(TextField(id: "field", label: "Field", text: "text")),
                .list(ListView(id: "list", items: [ListView.Item("item")], selectedIndex: 0)),
                .stack(Stack(.vertical, [.text(Text("inside"))])),
            ])
        let bytes = Data("{\"key\":1}".utf8)
        return [
            .hello(version: FeatureWire.version), .welcome(version: FeatureWire.version, manifest: manifest),
            .start(state: ["template.state": bytes], writable: ["template.state"], services: ["template.service"]),
            .started, .restore(bytes), .restored(failure: nil), .willShow(location), .screen(location),
            .screenUpdate(location, screen), .snapshot(bytes), .done,
            .action(.input(id: "field", text: "a"), at: location),
            .action(.tap(id: "button"), at: location), .stateChanged(key: "template.state", value: bytes),
            .stateWrite(key: "template.state", value: bytes), .navigate(.push("template://home")), .log("line"),
            .serviceCall(id: 1, key: "template.service", request: bytes),
            .serviceReply(id: 1, response: bytes, error: nil),
            .serviceReply(id: 2, response: nil, error: ServiceError(code: "unavailable", message: "none")),
            .startFailed("reason"), .refused("reason", fix: "fix", code: Problem.Code.loadFailed.rawValue),
        ]
    }
}
