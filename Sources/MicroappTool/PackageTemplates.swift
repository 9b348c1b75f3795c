import Foundation

// What `microapp new NAME --package DIR` writes besides the feature's own sources: a standalone SwiftPM package that
// depends on the SDK `microapp sdk --install` wrote.

extension FeatureScaffold {
    /// Every file of the package, by path inside DIR: the feature's files in SwiftPM's default layout (Sources/NAME,
    /// Sources/NAMEPlugin, Tests/NAMETests), its golden previews, Package.swift and .gitignore.
    func packageFiles(sdkVersion: String) -> [(path: String, contents: String)] {
        let moved = files.map { file -> (path: String, contents: String) in
            for (from, to) in [
                ("Sources/", "Sources/\(name)/"), ("Entry/", "Sources/\(name)Plugin/"),
                ("Tests/", "Tests/\(name)Tests/"),
            ] where file.path.hasPrefix(from) {
                return (to + file.path.dropFirst(from.count), file.contents)
            }
            return file
        }
        return [("Package.swift", packageManifest(sdkVersion: sdkVersion)), (".gitignore", ".build/\n/.swiftpm/\n")]
            + moved
    }

    /// The package's manifest: the SDK's folder from `$MICROAPP_SDK`, else where `microapp sdk` installs it.
    func packageManifest(sdkVersion: String) -> String {
        #"""
        // swift-tools-version: 6.0
        import Foundation
        import PackageDescription

        // The Microapps SDK this feature is built against, as two packages (MicroappSDK, MicroappTesting) in the folder
        // `microapp sdk` prints and `microapp sdk --install` writes; $MICROAPP_SDK names another folder.
        let environment = ProcessInfo.processInfo.environment
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? "") + "/.local/share"
        let sdk = environment["MICROAPP_SDK"].flatMap { $0.isEmpty ? nil : $0 } ?? dataHome + "/microapp/sdk/\#(sdkVersion)"

        let microappSDK: Target.Dependency = .product(name: "MicroappSDK", package: "MicroappSDK")
        let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

        let package = Package(
            name: "\#(name)",
            products: [
                // lib\#(name).so, the plugin the host loads: `microapp --plugins .build/debug`.
                .library(name: "\#(name)", type: .dynamic, targets: ["\#(name)Plugin"])
            ],
            dependencies: [.package(path: sdk + "/MicroappSDK"), .package(path: sdk + "/MicroappTesting")],
            targets: [
                .target(name: "\#(name)", dependencies: [microappSDK], swiftSettings: strict),
                .target(name: "\#(name)Plugin", dependencies: ["\#(name)", microappSDK], swiftSettings: strict),
                .testTarget(
                    name: "\#(name)Tests",
                    dependencies: ["\#(name)", microappSDK, .product(name: "MicroappTesting", package: "MicroappTesting")],
                    swiftSettings: strict),
            ]
        )

        """#
    }
}
