// The sources `microapp new NAME` writes. Raw strings: `\#(…)` is filled in here, `\(…)` is the new feature's own
// interpolation. Each file is already in swift-format's style, with a doc line on every public declaration.

extension FeatureScaffold {
    /// `import` lines in swift-format's order, each ending in a newline.
    private func imports(_ modules: [String]) -> String {
        modules.sorted().map { "import \($0)\n" }.joined()
    }

    var featureSource: String {
        #"""
        import Foundation
        import MicroappSDK

        /// \#(name): one screen, \#(route), that greets whoever is named in it.
        public enum \#(typePrefix)Feature: Feature {
            /// Its route, the service it calls, and the same service offered to the app.
            public static let manifest = FeatureManifest(
                id: "\#(id)", version: 1, displayName: "\#(name)",
                routes: [RouteDeclaration(\#(typePrefix)Route.home.url)],
                requirements: [\#(typePrefix)Keys.greeting.requirement],
                provides: [Provision(\#(typePrefix)Keys.greeting)],
                hasMocks: true,
                // Its place in the app's tab bar, after the demo's own tabs.
                tab: TabDeclaration(title: "\#(name)", route: \#(typePrefix)Route.home.url, order: 100))

            /// The greeting service \#(name) offers the app: its own screen gets it, and so does any feature that
            /// lists `\#(serviceKey)` in its requirements. Run alone, the mocks stand in for it.
            @MainActor public static func provide(_ context: FeatureContext) throws -> Provisions {
                var provisions = Provisions()
                provisions.add(\#(typePrefix)Keys.greeting, .live)
                return provisions
            }

            /// Builds the Root around the service the host (or the mocks) hand over.
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                let greeting = try context.service(\#(typePrefix)Keys.greeting)
                let viewModel = \#(typePrefix)ViewModel(
                    dependencies: .init(greet: greeting.callAsFunction), onChange: { context.invalidate() })
                return \#(typePrefix)Root(viewModel: viewModel)
            }
        }

        /// The dependencies \#(name) asks the host for.
        public enum \#(typePrefix)Keys {
            /// Makes the greeting on the home screen.
            public static let greeting = DependencyKey<Service<GreetingRequest, Greeting>>.service(
                "\#(serviceKey)")
        }

        /// What `\#(serviceKey)` takes: who to greet.
        public struct GreetingRequest: Codable, Sendable, Equatable {
            /// The name to greet.
            public var name: String

            /// Asks to greet `name`.
            public init(name: String) { self.name = name }
        }

        /// What `\#(serviceKey)` answers.
        public struct Greeting: Codable, Sendable, Equatable {
            /// The words shown.
            public var message: String

            /// Creates a greeting.
            public init(message: String) { self.message = message }
        }

        extension Service where Request == GreetingRequest, Response == Greeting {
            /// The greeting the app uses: what \#(name) provides. Replace it with a call to a real service.
            public static var live: Self { Self { request in Greeting(message: "Welcome, \(request.name)!") } }
        }

        /// The screens of \#(name), each with its URL.
        enum \#(typePrefix)Route: FeatureRoute {
            /// The one screen.
            case home

            var url: String { "\#(route)" }

            init?(_ location: Location) {
                guard location.pattern == "\#(route)" else { return nil }
                self = .home
            }
        }

        /// \#(name)'s live Root: sends each location to its view model, and keeps what was typed across a hot swap.
        @MainActor
        final class \#(typePrefix)Root: Root {
            private let viewModel: \#(typePrefix)ViewModel

            init(viewModel: \#(typePrefix)ViewModel) { self.viewModel = viewModel }

            func willShow(_ location: Location) { viewModel.willShow() }

            func screen(at location: Location) -> Screen { viewModel.screen }

            func handle(_ action: Action, at location: Location) { viewModel.handle(action) }

            /// The state the next version starts from after a hot swap, as JSON.
            func snapshot() -> Data? { try? JSONEncoder().encode(viewModel.saved) }

            /// Takes back a snapshot of this or an earlier version; throws (the screen starts fresh) when it cannot.
            func restore(from snapshot: Data) throws {
                viewModel.restore(try JSONDecoder().decode(\#(typePrefix)ViewModel.Saved.self, from: snapshot))
            }
        }

        """#
    }

    var viewModelSource: String {
        #"""
        import MicroappSDK

        /// The home screen: a name, and the greeting the service makes for it.
        @MainActor
        final class \#(typePrefix)ViewModel {
            /// What the screen needs from outside.
            struct Dependencies {
                var greet: (GreetingRequest) async throws(ServiceError) -> Greeting
            }

            /// Where the greeting is.
            enum Phase: Equatable {
                case loading
                case loaded(Greeting)
                case failed(String)
            }

            /// What outlives a hot swap: the name typed. The greeting is asked for again, from the new version.
            struct Saved: Codable {
                var name: String
            }

            static let nameID = "name"
            static let greetID = "greet"
            static let retryID = "retry"

            private(set) var phase = Phase.loading
            private(set) var name = "World"
            private var started = false
            private let dependencies: Dependencies
            private let onChange: () -> Void

            init(dependencies: Dependencies, onChange: @escaping () -> Void) {
                self.dependencies = dependencies
                self.onChange = onChange
            }

            var saved: Saved { Saved(name: name) }

            func restore(_ saved: Saved) { name = saved.name }

            /// Asks for the first greeting when the screen first shows.
            func willShow() {
                guard !started else { return }
                started = true
                load()
            }

            var screen: Screen {
                let title = "\#(typePrefix)"
                let field = Element.field(TextField(id: Self.nameID, label: "Name", text: name, placeholder: "Who to greet"))
                let greet = Element.button(Button(id: Self.greetID, title: "Greet"))
                switch phase {
                case .loading:
                    return Screen(title: title, content: [field, greet], state: .loading("Asking for a greeting…"))
                case .loaded(let greeting):
                    return Screen(title: title, content: [.text(Text(greeting.message, style: .headline)), field, greet])
                case .failed(let message):
                    let panel = ErrorPanel(
                        title: "Could not get a greeting", message: message,
                        actions: [Button(id: Self.retryID, title: "Retry")])
                    return Screen(title: title, content: [field, greet], state: .error(panel))
                }
            }

            func handle(_ action: Action) {
                switch action {
                case .input(id: Self.nameID, let text): name = text
                case .tap(id: Self.greetID), .tap(id: Self.retryID): if phase != .loading { load() }
                default: break
                }
            }

            private func load() {
                phase = .loading
                let request = GreetingRequest(name: name)
                let greet = dependencies.greet
                Task { @MainActor in
                    do throws(ServiceError) {
                        phase = .loaded(try await greet(request))
                    } catch {
                        phase = .failed(error.message)
                    }
                    onChange()
                }
            }
        }

        """#
    }

    var mocksSource: String {
        #"""
        import MicroappSDK

        // Stand-ins for the greeting service, for running \#(name) alone (`microapp solo \#(name)`), its previews and
        // its tests. Pick a variant with `--mock \#(serviceKey)=failing` (or `slow`).

        extension Service where Request == GreetingRequest, Response == Greeting {
            /// Greets anyone by name: `Hello, Rick!`.
            public static var mock: Self { Self { request in Greeting(message: "Hello, \(request.name)!") } }

            /// Answers after two seconds, to see the loading state.
            public static var mockSlow: Self {
                Self { request in
                    try await Task.sleep(for: .seconds(2))
                    return Greeting(message: "Hello, \(request.name)… at last!")
                }
            }

            /// Always `unavailable`, to see the error state.
            public static var mockUnavailable: Self {
                Self { _ in throw ServiceError(code: "unavailable", message: "The greeting service is unavailable") }
            }
        }

        extension \#(typePrefix)Feature {
            /// Every requirement met by mocks: what running \#(name) alone and its previews use.
            @MainActor public static func mocks() -> Mocks {
                var mocks = Mocks()
                mocks.service(\#(typePrefix)Keys.greeting, .mock)
                mocks.service(\#(typePrefix)Keys.greeting, variant: "slow", .mockSlow)
                mocks.service(\#(typePrefix)Keys.greeting, variant: "failing", .mockUnavailable)
                return mocks
            }
        }

        """#
    }

    var previewsSource: String {
        #"""
        import MicroappSDK

        extension \#(typePrefix)Feature {
            /// The home screen in each state it shows, on the mocks: loading, the greeting, the error with Retry.
            @MainActor public static func previews() async throws -> [ScreenPreview] {
                let home = try RootDriver(Self.self, open: \#(typePrefix)Route.home.url)
                let loading = home.preview()
                try await home.next(.view)
                let failing = try RootDriver(
                    Self.self, open: \#(typePrefix)Route.home.url,
                    mocks: [\#(typePrefix)Keys.greeting.id: "failing"])
                try await failing.next(.error)
                return [loading, home.preview(), failing.preview()]
            }
        }

        """#
    }

    var entrySource: String {
        imports(["MicroappSDK", name])
            + #"""

            /// The one symbol the host looks up: this feature's descriptor (ABI version, manifest, register).
            @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
                MicroappEntry.export(\#(typePrefix)Feature.self)
            }

            """#
    }

    var testSource: String {
        imports(["MicroappSDK", "MicroappTesting", "Testing", name])
            + #"""

            @MainActor
            @Suite("\#(name) on its own mocks")
            struct \#(typePrefix)Tests {
                @Test("the home screen greets the name typed into it")
                func greetsByName() async throws {
                    #expect(\#(typePrefix)Feature.mocks().unmocked(in: \#(typePrefix)Feature.manifest).isEmpty)
                    let harness = try RootDriver(\#(typePrefix)Feature.self, open: "\#(route)")
                    _ = try await harness.next { $0.texts == ["Hello, World!"] }
                    try harness.type("Rick", into: "name")
                    try harness.tap("greet")
                    _ = try await harness.next { $0.texts == ["Hello, Rick!"] }
                }

                @Test("the name typed outlives a hot swap: the next version greets it again")
                func keepsTheNameAcrossASwap() async throws {
                    let before = try RootDriver(\#(typePrefix)Feature.self, open: "\#(route)")
                    _ = try await before.next { $0.texts == ["Hello, World!"] }
                    try before.type("Morty", into: "name")
                    let snapshot = try #require(before.root.snapshot())
                    let after = try RootDriver(\#(typePrefix)Feature.self, open: "\#(route)", restoring: snapshot)
                    _ = try await after.next { $0.texts == ["Hello, Morty!"] }
                    #expect(after.field("name")?.text == "Morty")
                }

                @Test("it provides the app a greeting that welcomes the name asked for")
                func providesTheLiveGreeting() async throws {
                    #expect(\#(typePrefix)Feature.manifest.provides.map(\.key) == ["\#(serviceKey)"])
                    let greeting = try await Service<GreetingRequest, Greeting>.live(GreetingRequest(name: "Rick"))
                    #expect(greeting == Greeting(message: "Welcome, Rick!"))
                }

                @Test("a failing service shows the error state, and Retry asks again")
                func failingServiceShowsError() async throws {
                    let harness = try RootDriver(
                        \#(typePrefix)Feature.self, open: "\#(route)", mocks: ["\#(serviceKey)": "failing"])
                    _ = try await harness.next { $0.element(id: "retry") != nil }
                    try harness.tap("retry")
                    #expect(harness.screen.state == .loading("Asking for a greeting…"))
                }
            }

            """#
    }
}
