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
            // Library evolution: resilient types and a module interface, so a plugin built against SDK 1.x keeps
            // working with 1.y (y ≥ x) after additive changes (new members, stored properties, enum cases).
            // Warnings are suppressed here because the compiler warns on every public `import Foundation` (not
            // built with library evolution on Linux; the SDK's API uses its `Data`); scripts/check-sdk-abi
            // compiles the SDK with warnings on and fails on any other warning.
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .unsafeFlags([
                    "-enable-library-evolution", "-emit-module-interface", "-no-verify-emitted-module-interface",
                    "-suppress-warnings",
                ]),
            ],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libMicroappSDK.so"])]
        ),
    ]
)
