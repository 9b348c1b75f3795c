import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappHost
import MicroappLoading
import MicroappPlatform

/// `microapp sdk [--install]`: where the SDK of this host lives as packages for features built outside the
/// repository (printed alone on stdout, for `export MICROAPP_SDK=$(microapp sdk)`), and whether it is written there.
enum SDKCommand: Command {
    static let install = OptionSpec.flag(
        "--install", help: "write it there (MicroappSDK and MicroappTesting, as this host was built)")

    static let declaration = CommandSpec(
        "microapp sdk", summary: "print where this host's SDK is installed for features in packages of their own",
        options: [install],
        discussion: """
            Prints the folder that holds this host's SDK as two SwiftPM packages, MicroappSDK and
            MicroappTesting: $MICROAPP_SDK when set, else $XDG_DATA_HOME/microapp/sdk/MAJOR.MINOR (else
            ~/.local/share/…). A package that `microapp new NAME --package DIR` makes depends on them there,
            so it builds in any folder and from a git clone. --install writes the SDK sources this host was
            built from (nothing when they are there already); `microapp new NAME --package DIR` does it too.
            Exit 1 when the SDK is not there, or differs from this host's (run with --install).
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        try run(arguments)
    }

    static func run(_ arguments: Arguments) throws(Problem) -> ExitCode {
        let installation = try current(arguments.environment)
        if arguments[install] {
            let written = try installation.install(builtSDK: builtSDK)
            Console.out(installation.folder.path)
            Console.err(
                written
                    ? "microapp: wrote SDK \(installation.version) (MicroappSDK, MicroappTesting) to \(installation.folder.path)"
                    : "microapp: SDK \(installation.version) at \(installation.folder.path) is current")
            return .ok
        }
        let state = try installation.state()
        Console.out(installation.folder.path)
        switch state {
        case .current:
            Console.err("microapp: SDK \(installation.version) there is the one this host was built with")
            return .ok
        case .missing, .different:
            Console.err(
                Problem(
                    code: state == .missing ? .sdkMissing : .sdkStale, subject: installation.folder.path,
                    reason: state == .missing
                        ? "the SDK \(installation.version) is not installed there"
                        : "the SDK there differs from the one this host was built with",
                    fix: "run `microapp sdk --install`"))
            return .usage
        }
    }

    /// The installation of the SDK of the repository this executable was built in, where `environment` puts it.
    static func current(_ environment: HostEnvironment) throws(Problem) -> SDKInstallation {
        guard let repository = PluginLocations.current().repository else {
            throw Problem.usage(
                "this microapp does not run from the build folder of a repository, so it has no SDK sources to install",
                fix: "run it from its repository (`swift run microapp sdk --install`)")
        }
        return try SDKInstallation(repository: repository, environment: environment)
    }

    /// The SDK library this executable runs with (beside it).
    static var builtSDK: URL {
        PluginLocations.current().executableDirectory.appendingPathComponent(PluginFileName.sdk)
    }
}
