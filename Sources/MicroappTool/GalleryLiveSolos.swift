import Foundation
import MicroappPlatform
import Synchronization

/// The live apps a gallery's cards open: `POST /live {"name":…}` starts `solo FEATURE --open ROUTE --mock … --ui web`
/// (this same executable, on the mock variants the card's screen was reached on) for that card, once; when the child prints its URL, the page is told with a
/// `live` event (`{"name":…,"url":…}`, or `{"name":…,"error":…}` when it ended or stayed silent). Every child ends
/// with the gallery.
final class GalleryLiveSolos: Sendable {
    /// A card the page may ask to open live: its feature's display name, its route and its mock variants by key.
    struct Card: Sendable {
        let feature: String
        let route: String
        let mocks: [String: String]

        /// `solo FEATURE --open ROUTE --mock KEY=VARIANT…`: what the card's command and its live child both say.
        var soloArguments: [String] {
            ["solo", feature, "--open", route]
                + mocks.sorted { $0.key < $1.key }.flatMap { ["--mock", "\($0.key)=\($0.value)"] }
        }
    }

    private let cards: Mutex<[String: Card]>
    private let executable: String
    private let options: [String]
    private let environment: [String: String]
    private let folder: String
    private let tell: @Sendable (_ event: String) -> Void
    private let started = Mutex<[String: (child: ChildProcess, output: String)]>([:])
    /// How long a child may take to print its URL before the card is told it failed.
    static let patience: Duration = .seconds(30)

    /// Children of `executable` with `options` after the card's own (`--plugins DIR`, …) in `environment`, their
    /// output kept in `folder`; `tell` sends a `live` event's JSON to the page.
    init(
        cards: [String: Card], executable: String, options: [String], environment: [String: String], folder: String,
        tell: @escaping @Sendable (_ event: String) -> Void
    ) {
        self.cards = Mutex(cards)
        self.executable = executable
        self.options = options
        self.environment = environment
        self.folder = folder
        self.tell = tell
    }

    /// The answer to the page's `POST /live`, on the server's thread: the child is started here, its URL awaited on a
    /// thread of its own.
    func open(_ body: [UInt8]) -> (status: Int, json: String) {
        struct Asked: Decodable { let name: String }
        guard let asked = try? JSONDecoder().decode(Asked.self, from: Data(body)),
            let card = cards.withLock({ $0[asked.name] })
        else {
            return (400, #"{"code":"bad-card","message":"no card of that name","fix":"reload the gallery"}"#)
        }
        let output = folder + "/live-\(UUID().uuidString).txt"
        let child: ChildProcess
        do {
            let arguments =
                [executable] + card.soloArguments + [
                    "--ui", "web", "--port", "0", "--no-build", "--end-with-parent",
                ] + options
            let (process, new) = try started.withLock { started throws(SystemCallError) -> (ChildProcess, Bool) in
                if let running = started[asked.name] { return (running.child, false) }
                let process = try ChildProcess(
                    arguments, environment: environment, output: .file(output), error: .null)
                started[asked.name] = (process, output)
                return (process, true)
            }
            // Asked again (a second tab, a second click): the page was told, or will be, by the first.
            guard new else { return (202, #"{"started":true}"#) }
            child = process
        } catch {
            return (500, Self.event(name: asked.name, error: "could not start solo: \(error.problem.reason)"))
        }
        let name = asked.name
        let tell = tell
        Thread.detachNewThread {
            tell(Self.awaitURL(of: child, in: output, name: name))
        }
        return (202, #"{"started":true}"#)
    }

    /// The `live` event of the child writing `output`: its URL once printed, or why there is none.
    private static func awaitURL(of child: ChildProcess, in output: String, name: String) -> String {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            let text = Files.contents(output).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Open http://127.0.0.1:") }),
                let url = line.split(separator: " ").dropFirst().first
            {
                return event(name: name, url: String(url))
            }
            if ProcessStatus.hasEnded(child.pid) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return event(name: name, error: "solo did not start its page; run the card's command in a terminal to see why")
    }

    /// The cards as the gallery has them now (a feature rebuilt under `--watch` may have others).
    func update(_ cards: [String: Card]) {
        self.cards.withLock { $0 = cards }
    }

    /// Ends every child the gallery started and waits for each.
    func stopAll() {
        let children = started.withLock { started in
            defer { started.removeAll() }
            return Array(started.values)
        }
        for (child, output) in children {
            child.signal(SIGTERM)
            _ = child.wait(timeout: .seconds(10))
            try? Files.remove(output)
        }
    }

    private static func event(name: String, url: String? = nil, error: String? = nil) -> String {
        struct Live: Encodable {
            let name: String
            let url: String?
            let error: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Live(name: name, url: url, error: error))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
