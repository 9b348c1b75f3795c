// swift-tools-version: 6.0
import PackageDescription

// The app's features, one line each. A feature `Name` is three folders:
//   Plugins/<Name>/Sources   the feature's code (target <Name>, importable by tests and a monolith)
//   Plugins/<Name>/Entry     its one-line C entry (target <Name>Plugin)
//   Plugins/<Name>/Tests     its own tests (target <Name>Tests)
// and the product lib<Name>.so is a .dynamic library the host loads with dlopen. `microapp new NAME` writes the folder
// and adds its line; `microapp remove NAME` takes both away. The list is declared, not read from Plugins/: SwiftPM
// caches this file's evaluation by its contents, so a list read from a folder went stale when one was added or removed
// (`invalid custom path` until the cache was purged); a change to this list is a change to the file.
let features: [String] = [
    // microapp: features begin
    "Auth",
    "Characters",
    "Search",
    "Settings",
    // microapp: features end
]

let sdk: Target.Dependency = .product(name: "MicroappSDK", package: "MicroappSDK")
// The demo app's own features are the only ones that link its contracts; any other feature (one `microapp new`
// makes, say) sees only the SDK.
let demoFeatures: Set = ["Auth", "Characters", "Search", "Settings"]
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
// The second step of .ci/run, left out of `swift test` (its test phase stays within 45 s on two cores): the suites whose
// claim is about SwiftPM packaging (a package outside the repository, an app's own host, the SDK grown from source,
// edit-to-live and adding a feature in a copy of the repository, the shadow build of SwiftPM's plan), each building a
// fixture afresh, minutes of CPU, in Tests/<Target>/Packaging; and the suites that drive the browser front end in
// Chromium (the demo's journeys, hostile strings, the gallery, a hot swap, the page's every element), seconds of a
// browser's CPU each, in Tests/<Target>/Browser. `scripts/test-packaging` and `scripts/test-browser` set
// MICROAPP_TEST_SECOND_STEP=1 (SwiftPM evaluates this file again when the environment changes: one build serves both)
// and run only their suites.
let secondStep = Context.environment["MICROAPP_TEST_SECOND_STEP"] == "1"
/// The second step's folders of a test target that has them (`Packaging`, `Browser`): left out of `swift test`.
func secondStepFolders(_ folders: String...) -> [String] { secondStep ? [] : folders }

let featureTargets: [Target] = features.flatMap { name -> [Target] in
    [
        .target(
            name: name, dependencies: [sdk] + (demoFeatures.contains(name) ? ["DemoContracts"] : []),
            path: "Plugins/\(name)/Sources", swiftSettings: strict),
        .target(
            name: "\(name)Plugin", dependencies: [.target(name: name), sdk], path: "Plugins/\(name)/Entry",
            swiftSettings: strict),
        .testTarget(
            name: "\(name)Tests", dependencies: [.target(name: name), "MicroappTesting", sdk],
            path: "Plugins/\(name)/Tests", swiftSettings: strict),
    ]
}

let package = Package(
    name: "Microapps",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "microapp", targets: ["microapp"]),
        // The generic tool over an app's own services: an app's host is a main.swift that calls it.
        .library(name: "MicroappTool", targets: ["MicroappTool"]),
        // The demo host's service shapes, for a feature outside this repository that talks to the demo app.
        .library(name: "DemoContracts", targets: ["DemoContracts"]),
    ] + features.map { .library(name: $0, type: .dynamic, targets: ["\($0)Plugin"]) },
    dependencies: [
        .package(path: "Sources/MicroappSDK")
    ],
    targets: [
        // Every executable's command line, declared once: parsing, validation and help from one description.
        .target(name: "CommandLineSpec", path: "Sources/CommandLineSpec", swiftSettings: strict),
        // The engine in layers, arrows pointing one way: host (the loading pipeline) → dev loop → platform → core → SDK.
        // Pure logic: manifests, container, resolver, routes, router, runtime, swap handover. No files, no processes.
        // Names are compared as people read them by ICU's spoof checker, in the toolchain's lib_FoundationICU.so
        // (already loaded by Foundation in every process).
        .target(
            name: "MicroappCore", dependencies: [sdk], path: "Sources/MicroappCore", swiftSettings: strict,
            linkerSettings: [.linkedLibrary("_FoundationICU")]),
        // The system layer, the one module that calls the OS: system calls behind one wrapper (EINTR, errno as a
        // Problem), files, stamps, locks and events, processes and fork (the runners, the zygote, an isolated child's
        // process and socket), the sandbox's mechanisms, ELF checks, private copies of libraries, the one dlopen,
        // libcurl's downloads. The capability modules above it call the system through it.
        .target(
            name: "MicroappPlatform", dependencies: ["MicroappCore", "MicroappDigest", "CPlatform", "CFetch", sdk],
            path: "Sources/MicroappPlatform", swiftSettings: strict),
        // The development loop: watching sources, rebuilding one feature, hot-swap orchestration.
        .target(
            name: "MicroappDevLoop",
            dependencies: [
                "MicroappIsolation", "MicroappShipping", "MicroappPlatform", "MicroappLoading", "MicroappCore", sdk,
            ],
            path: "Sources/MicroappDevLoop", swiftSettings: strict),
        // The loading pipeline every command shares (find, lock check, placement, probe, load, dedupe, --only,
        // resolve) and the policies it decides by: above the dev loop, whose start-up build is its first step, and
        // below the tool, which only turns options into its requests. No system call of its own: the platform's.
        .target(
            name: "MicroappHost",
            dependencies: [
                "CommandLineSpec", "MicroappDevLoop", "MicroappIsolation", "MicroappShipping", "MicroappPlatform",
                "MicroappLoading",
                "MicroappCore", sdk,
            ],
            path: "Sources/MicroappHost", swiftSettings: strict),
        // SHA-256 and Ed25519 from OpenSSL's libcrypto (Debian's libssl-dev; .ci/run installs it): nothing cryptographic by hand.
        .target(
            name: "MicroappDigest", dependencies: ["CCrypto"], path: "Sources/MicroappDigest", swiftSettings: strict),
        .target(name: "CCrypto", path: "Sources/CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        // A channel's HTTP(S) downloads with libcurl's easy interface (Debian's libcurl4-openssl-dev; .ci/run installs
        // it), not URLSession: no content decoding, every byte counted as it arrives, a deadline the transfer keeps.
        // libcurl is opened with dlopen at the first transfer, not linked: it maps some thirty libraries, and a process
        // that downloads nothing (nearly every one) maps none of them.
        .target(name: "CFetch", dependencies: ["CPlatform"], path: "Sources/CFetch"),
        // Loading a library, on the system layer: the plugin lock, the probe (a library's first run, in a sandboxed
        // child) and its cache, the loader's checks of a descriptor and a manifest, a set of libraries found, checked
        // and loaded.
        .target(
            name: "MicroappLoading", dependencies: ["MicroappPlatform", "MicroappCore", "MicroappDigest", sdk],
            path: "Sources/MicroappLoading", swiftSettings: strict),
        // Isolation: a feature in a sandboxed child, seen from both ends: the host's side of the protocol
        // (IsolatedRoot: every message checked, budgets, deadlines), the child's server (IsolatedServer), their start
        // (IsolatedPlugin), the run's running children, and how a child ended (FeatureExit, CrashReport).
        .target(
            name: "MicroappIsolation", dependencies: ["MicroappPlatform", "MicroappLoading", "MicroappCore", sdk],
            path: "Sources/MicroappIsolation", swiftSettings: strict),
        // Shipping, in one place: releases and channels as The Update Framework teaches (signed release records, a
        // signed channel index with an expiry, trust in named keys, versions that never go back: rules as values),
        // and their files: the release store, a channel's folder and downloads, the updater, kept versions, the
        // canary's record, an installation's staging and layout.
        .target(
            name: "MicroappShipping",
            dependencies: ["MicroappPlatform", "MicroappLoading", "MicroappCore", "MicroappDigest", sdk],
            path: "Sources/MicroappShipping", swiftSettings: strict),
        .target(
            name: "MicroappTerminal", dependencies: ["MicroappCore", "CPlatform", sdk],
            path: "Sources/MicroappTerminal",
            swiftSettings: strict),
        // The system calls Swift cannot make safely: variadic prctl, and signal handlers' bodies (async-signal-safe C).
        .target(name: "CPlatform", path: "Sources/CPlatform"),
        .target(name: "MicroappTesting", dependencies: [sdk], path: "Sources/MicroappTesting", swiftSettings: strict),
        // The browser front end (`--ui web`): the app served on loopback, frames as Server-Sent Events, events as POSTs.
        .target(
            name: "MicroappWeb", dependencies: ["MicroappCore", "MicroappTerminal", "CWebServer", "CWebPage", sdk],
            path: "Sources/MicroappWeb", swiftSettings: strict),
        // HTTP from GNU libmicrohttpd (Debian's libmicrohttpd-dev; .ci/run installs it), opened with dlopen when a server
        // first starts (not linked: only `--ui web` needs it and GnuTLS behind it), its calls made through C. Nothing
        // parses HTTP by hand.
        .target(name: "CWebServer", dependencies: ["CPlatform"], path: "Sources/CWebServer"),
        // The page's own HTML, CSS and JavaScript, embedded in the binary by the compiler (#embed): nothing fetched.
        .target(name: "CWebPage", path: "Sources/CWebPage", exclude: ["page"]),
        // The generic command line (run, solo, preview, doctor, graph, keys, new, …) over a host's configuration.
        .target(
            name: "MicroappTool",
            dependencies: [
                "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappLoading", "MicroappIsolation",
                "MicroappDevLoop",
                "MicroappHost", "MicroappTerminal", "MicroappWeb", "CPlatform", "MicroappDigest", "MicroappShipping",
                sdk,
            ],
            // host-api.txt: the host API's baseline (scripts/check-host-api).
            path: "Sources/MicroappTool", exclude: ["host-api.txt"], swiftSettings: strict),
        // The demo app's host: its composition root (main.swift) handing DemoServices to MicroappTool.
        .executableTarget(
            name: "microapp", dependencies: ["MicroappTool", "DemoServices"],
            path: "hosts/microapp/CLI",
            swiftSettings: strict),
        // The demo app's real services, chosen in the composition root (hosts/microapp/CLI). The characters API is
        // asked through CFetch (libcurl, opened at the first request), not URLSession, whose FoundationNetworking
        // would map libcurl into every process of the host.
        .target(
            name: "DemoServices",
            dependencies: [
                "CommandLineSpec", "DemoContracts", "MicroappCore", "MicroappPlatform", "CFetch", "CSQLite", "CCrypt",
                sdk,
            ],
            path: "hosts/microapp/Services", swiftSettings: strict),
        // The shapes of the demo app's services: plain Codable structs its features and its host share.
        .target(name: "DemoContracts", path: "Sources/DemoContracts", swiftSettings: strict),
        .systemLibrary(name: "CSQLite", path: "hosts/microapp/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypt", path: "hosts/microapp/CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // One scratch folder per test process, removed when it exits (temporary files, children's caches and data).
        .target(name: "TestScratch", path: "Tests/TestScratch", swiftSettings: strict),
        // Plugin libraries built from C for the engine's tests (each descriptor field a C expression), the real
        // plugins beside the test runner, and a container like the demo's that they load and resolve against.
        .target(
            name: "TestPlugins",
            dependencies: ["MicroappPlatform", "MicroappLoading", "MicroappCore", "TestScratch", sdk],
            path: "Tests/TestPlugins", swiftSettings: strict),
        // Loading with real libraries: C fixtures for every way a descriptor can be wrong, the probe, the plugin
        // lock, the probe cache's file, checked bytes.
        .testTarget(
            name: "MicroappLoadingTests",
            // Isolation too: CheckedBytesTests hands a checked copy to an isolated child.
            dependencies: [
                "MicroappLoading", "MicroappIsolation", "MicroappPlatform", "MicroappCore", "TestPlugins",
                "TestScratch",
                sdk,
            ],
            path: "Tests/MicroappLoadingTests", swiftSettings: strict),
        // The isolation protocol's host side and a child's ends (exits, crash reports), with real children.
        .testTarget(
            name: "MicroappIsolationTests",
            dependencies: [
                "MicroappIsolation", "MicroappPlatform", "MicroappLoading", "MicroappCore", "TestPlugins",
                "TestScratch", sdk,
            ],
            path: "Tests/MicroappIsolationTests", swiftSettings: strict),
        // Stand-ins for the services the demo app talks to over the network (a loopback HTTP server, the Rick and
        // Morty API), shared by service tests and end-to-end tests.
        .target(name: "TestServers", dependencies: ["DemoServices"], path: "Tests/TestServers", swiftSettings: strict),
        .testTarget(
            name: "DemoServicesTests",
            dependencies: ["DemoServices", "MicroappPlatform", "TestScratch", "TestServers", sdk],
            path: "Tests/DemoServicesTests", swiftSettings: strict),
        // A test target per module, named after it (TestLayoutTests keeps it so); EndToEndTests runs the binaries.
        .testTarget(
            name: "MicroappCoreTests", dependencies: ["MicroappCore", "MicroappTesting", "TestScratch", sdk],
            path: "Tests/MicroappCoreTests", swiftSettings: strict),
        // The SDK's own types (route patterns, RootDriver, type shapes, its clock) and its documentation.
        .testTarget(
            name: "MicroappSDKTests", dependencies: ["MicroappTesting", "TestScratch", sdk],
            path: "Tests/MicroappSDKTests",
            swiftSettings: strict),
        .testTarget(
            name: "MicroappDigestTests", dependencies: ["MicroappDigest", "TestScratch"],
            path: "Tests/MicroappDigestTests",
            swiftSettings: strict),
        .testTarget(
            name: "CommandLineSpecTests", dependencies: ["CommandLineSpec", "TestScratch"],
            path: "Tests/CommandLineSpecTests",
            swiftSettings: strict),
        .testTarget(
            name: "MicroappPlatformTests",
            dependencies: [
                "MicroappCore", "MicroappPlatform", "MicroappLoading", "MicroappIsolation", "MicroappShipping",
                "TestPlugins",
                "TestScratch",
                sdk,
            ],
            path: "Tests/MicroappPlatformTests",
            swiftSettings: strict),
        // The loading pipeline's steps, driven one at a time with real libraries and plain values.
        .testTarget(
            name: "MicroappHostTests",
            dependencies: [
                "MicroappHost", "MicroappCore", "MicroappIsolation", "MicroappPlatform", "MicroappLoading",
                "TestScratch", sdk,
            ],
            path: "Tests/MicroappHostTests", swiftSettings: strict),
        .testTarget(
            name: "MicroappTerminalTests",
            dependencies: ["MicroappTerminal", "MicroappCore", "CPlatform", "TestScratch", sdk],
            path: "Tests/MicroappTerminalTests", swiftSettings: strict),
        // Debian's chromium, headless, driven over the DevTools protocol on a pipe: the browser tests' one browser.
        .target(name: "TestBrowser", dependencies: ["TestScratch"], path: "Tests/TestBrowser", swiftSettings: strict),
        .testTarget(
            name: "MicroappWebTests",
            dependencies: ["MicroappWeb", "MicroappCore", "MicroappTerminal", "TestBrowser", "TestScratch", sdk],
            path: "Tests/MicroappWebTests", exclude: secondStepFolders("Browser"), swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "MicroappIsolation", "MicroappPlatform", "MicroappLoading", "MicroappShipping", "TestBrowser",
                "TestScratch",
                "TestServers",
                sdk,
            ],
            path: "Tests/EndToEndTests", exclude: secondStepFolders("Packaging", "Browser"),
            swiftSettings: strict),
        // The same features linked statically: the floor the plugin host's cold start is measured against.
        .executableTarget(
            name: "monolith",
            dependencies: [
                "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappTerminal", "DemoServices", sdk,
            ]
                + demoFeatures.sorted().filter(features.contains).map { .target(name: $0) },
            path: "hosts/monolith", swiftSettings: strict),
        .executableTarget(
            name: "cold-start-benchmark",
            dependencies: ["BenchmarkSupport", "CommandLineSpec", "MicroappPlatform", "MicroappLoading"],
            path: "Benchmarks/ColdStart",
            swiftSettings: strict),
        .executableTarget(
            name: "hot-swap-benchmark",
            dependencies: [
                "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappLoading", "MicroappIsolation",
                "MicroappDevLoop", sdk,
            ],
            path: "Benchmarks/HotSwap",
            swiftSettings: strict),
        .testTarget(
            name: "MicroappDevLoopTests",
            dependencies: [
                "MicroappCore", "MicroappPlatform", "MicroappLoading", "MicroappShipping", "MicroappDevLoop",
                "MicroappIsolation", "MicroappTesting",
                "TestScratch", sdk,
            ],
            path: "Tests/MicroappDevLoopTests", exclude: secondStepFolders("Packaging"),
            swiftSettings: strict),
        .target(
            name: "BenchmarkSupport", dependencies: ["CommandLineSpec"], path: "Benchmarks/BenchmarkSupport",
            swiftSettings: strict),
        .executableTarget(
            name: "loader-benchmark",
            dependencies: [
                "BenchmarkSupport", "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappLoading", sdk,
            ],
            path: "Benchmarks/LoaderBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "host-benchmark",
            dependencies: [
                "BenchmarkSupport", "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappLoading", sdk,
            ],
            path: "Benchmarks/HostBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "update-benchmark",
            dependencies: [
                "BenchmarkSupport", "CommandLineSpec", "MicroappDigest", "MicroappPlatform", "MicroappShipping", sdk,
            ],
            path: "Benchmarks/UpdateBenchmark", swiftSettings: strict),
        // The browser front end against the JSON one, side by side (Chromium over the DevTools pipe).
        .executableTarget(
            name: "web-benchmark", dependencies: ["BenchmarkSupport", "CommandLineSpec", "TestBrowser"],
            path: "Benchmarks/Web", swiftSettings: strict),
        .executableTarget(
            name: "isolation-benchmark",
            dependencies: ["BenchmarkSupport", "CommandLineSpec", "MicroappPlatform"],
            path: "Benchmarks/IsolationBenchmark", swiftSettings: strict),
        .executableTarget(
            name: "microapp-fuzz", dependencies: ["BenchmarkSupport", "CommandLineSpec", "MicroappCore", sdk],
            path: "Benchmarks/Fuzz",
            swiftSettings: strict),
        // The CLI's own parts (`@testable import MicroappTool`).
        .testTarget(
            name: "MicroappToolTests",
            dependencies: [
                "MicroappTool", "CommandLineSpec", "MicroappCore", "MicroappPlatform", "MicroappLoading",
                "MicroappShipping",
                "MicroappHost", "MicroappTerminal", "DemoServices", "TestScratch", sdk,
            ],
            path: "Tests/MicroappToolTests",
            swiftSettings: strict),
        // The release rules with real signatures (keys made in the test), and every tampering refused; channels,
        // kept versions and their files.
        .testTarget(
            name: "MicroappShippingTests",
            dependencies: [
                "MicroappShipping", "MicroappPlatform", "MicroappLoading", "MicroappDigest", "MicroappCore",
                "TestScratch", sdk,
            ],
            path: "Tests/MicroappShippingTests", swiftSettings: strict),
    ] + featureTargets
)
