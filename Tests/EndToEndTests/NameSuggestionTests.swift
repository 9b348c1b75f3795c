import Foundation
import TestScratch
import Testing

/// A scratch home with its own config and state folders, and a signing key `key` made in it by `keygen`: the folder,
/// the environment that points there, and what keygen printed (the public key).
func homeWithKey(_ prefix: String, key: String) async throws -> (home: URL, environment: [String: String], key: String)
{
    let home = try temporaryFolder(prefix)
    let environment = ["XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state"]
    let made = try await runToEnd(["keygen", "--name", key], in: home, environment: environment)
    #expect(made.status == 0, "\(made.err)")
    return (home, environment, made.out.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// Did-you-mean for the names a person types, not only for commands: a feature, a key, a channel's scheme.
@Suite("End to end: did you mean, for names", .promptResumes)
struct NameSuggestionTests {
    @Test("solo and release of a misspelt feature suggest the feature there is")
    func misspeltFeature() async throws {
        let solo = try await runToEnd(["solo", "Charcters", "--no-build"])
        #expect(solo.status == 1)
        #expect(solo.err.contains("to fix: did you mean 'Characters'? Otherwise use one of"), "\(solo.err)")

        let environment = try await homeWithKey("suggest-release", key: "team").environment
        let release = try await runToEnd(
            ["release", "Charcters", "--key", "team"], in: Repository.root, environment: environment)
        #expect(release.status == 1)
        #expect(release.err.contains("did you mean `\(AppProcess.typed) release Characters`?"), "\(release.err)")
    }

    @Test("a misspelt --key suggests the key there is; a scheme no channel has is refused with the one meant")
    func misspeltKeyAndScheme() async throws {
        let (home, environment, _) = try await homeWithKey("suggest-key", key: "team")
        let publish = try await runToEnd(
            ["publish", home.path, "--channel", home.path + "/channel", "--key", "tema"], in: home,
            environment: environment)
        #expect(publish.status == 1)
        #expect(publish.err.contains("there is no key named tema"), "\(publish.err)")
        #expect(publish.err.contains("to fix: did you mean --key team? Otherwise make one with"), "\(publish.err)")

        let update = try await runToEnd(
            ["update", "--channel", "htp://127.0.0.1:8765", "--plugins", home.path], in: home, environment: environment)
        #expect(update.status == 1)
        #expect(update.err.contains("htp:// is not a channel's scheme (http, https or file)"), "\(update.err)")
        #expect(update.err.contains("did you mean `http://127.0.0.1:8765`?"), "\(update.err)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/htp:"), "nothing was read as a folder")
    }
}
