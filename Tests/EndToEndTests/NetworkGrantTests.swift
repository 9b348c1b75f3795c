import Foundation
import TestScratch
import TestServers
import Testing

/// What a message says about `network` is what the feature's child gets: an isolated feature declaring it connects
/// only when `--allow network` grants it, and the warning without it says the child runs without network.
@Suite("The network capability reaches an isolated feature's child exactly when it is granted", .promptResumes)
struct NetworkGrantTests {
    /// A feature declaring `network` whose first screen says whether a TCP connection to `port` on loopback worked.
    static func dialer(port: UInt16) async throws -> URL {
        try await compilePlugin(
            module: "Dialer",
            source: """
                import Foundation
                import MicroappSDK
                #if canImport(Glibc)
                import Glibc
                #endif

                public enum Dialer: Feature {
                    public static let manifest = FeatureManifest(
                        id: "dialer", version: 1, displayName: "Dialer", routes: [RouteDeclaration("dialer://home")],
                        capabilities: [.network])
                    @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { Page() }
                }

                @MainActor final class Page: Root {
                    lazy var outcome: String = Self.dial()
                    func screen(at location: Location) -> Screen {
                        Screen(title: "Dialer", content: [.text(Text(outcome))])
                    }
                    func handle(_ action: Action, at location: Location) {}

                    static func dial() -> String {
                        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                        guard descriptor >= 0 else { return "refused: no socket (errno \\(errno))" }
                        defer { close(descriptor) }
                        var address = sockaddr_in()
                        address.sin_family = sa_family_t(AF_INET)
                        address.sin_port = in_port_t(UInt16(\(port)).bigEndian)
                        address.sin_addr.s_addr = inet_addr("127.0.0.1")
                        let status = withUnsafePointer(to: &address) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                            }
                        }
                        guard status == 0 else { return "refused: connect failed (errno \\(errno))" }
                        _ = "GET /dialer HTTP/1.0\\r\\n\\r\\n".withCString { write(descriptor, $0, strlen($0)) }
                        return "connected"
                    }
                }

                @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
                    MicroappEntry.export(Dialer.self)
                }
                """)
    }

    /// The text of the first frame of `dialer://home` and what stderr and the error lines said, for `options`.
    static func dial(_ folder: URL, _ options: [String]) async throws -> (text: String, errors: [String]) {
        let app = try AppProcess(
            ["run", "--ui", "json", "--isolation", "process", "--plugins", folder.path, "--open", "dialer://home"]
                + options)
        let frame = try await app.waitForFrame(route: "dialer://home") { !screenText($0).contains("Starting") }
        app.send(#"{"type":"quit"}"#)
        _ = try await app.finish()
        let errors = app.objects.filter { $0["type"] as? String == "error" }
        return (screenText(frame), errors.map { "\($0["code"] as? String ?? "") \($0["message"] as? String ?? "")" })
    }

    @Test(
        "with --allow network the isolated child connects; without it the child cannot, and the warning says it runs without network"
    )
    func grantedReachesTheChild() async throws {
        let server = try LoopbackHTTPServer(lifetime: .seconds(120)) { _ in .respond(status: 200, body: "ok") }
        defer { server.stop() }
        let folder = try await Self.dialer(port: server.port)

        let withheld = try await Self.dial(folder, [])
        #expect(withheld.text.contains("refused"), "\(withheld.text)")
        let warning = withheld.errors.first { $0.hasPrefix("capability-not-allowed") }
        #expect(warning?.contains("not granted: it runs in its sandbox without it") == true, "\(withheld.errors)")
        #expect(server.targets.isEmpty, "nothing reached the listener")

        let granted = try await Self.dial(folder, ["--allow", "network"])
        #expect(granted.text.contains("connected"), "\(granted.text)")
        #expect(!granted.errors.contains { $0.hasPrefix("capability-not-allowed") }, "\(granted.errors)")
        #expect(server.targets == ["/dialer"], "the granted child's request arrived")
    }
}
