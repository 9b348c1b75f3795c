// swift-tools-version: 6.0
import PackageDescription

// The SDK is its own package so that it builds as ONE shared library: if it were an ordinary target of the
// root package, SwiftPM would link a static copy into every plugin and the host, and casts to SDK types
// would fail across images.
let package = Package(
    name: "MicroappSDK",
    products: [
        .library(name: "MicroappSDK", type: .dynamic, targets: ["MicroappSDK"])
    ],
    targets: [
        .target(name: "CMicroappABI", path: "ABI"),
        .target(
            name: "MicroappSDK",
            dependencies: ["CMicroappABI"],
            path: "Swift",
            swiftSettings: [.swiftLanguageMode(.v6)],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libMicroappSDK.so"])]
        ),
    ]
)
