import DemoServices
import Foundation
import MicroappTool

/// The composition root: the demo app's name, routes and services, the one place the generic commands learn them.
var demoHost = HostConfiguration(
    name: "Microapps", home: DemoContainer.home, signInFallback: "auth://select",
    services: { use, arguments in
        switch use {
        case .inspection: DemoContainer.inspection()
        case .live:
            try await DemoContainer.open(
                dataDirectory: arguments[DemoOptions.data], charactersURL: arguments[DemoOptions.charactersURL],
                environment: arguments.environment)
        }
    })
// The demo's own options of `run`: the generic tool knows nothing of its data folder or its characters' server.
demoHost.options = DemoOptions.all
// Auth alone writes the session and signs people in: a library that claims either is refused, and Auth runs on.
demoHost.stateOwners = ["session": "auth"]
demoHost.signInFeature = "auth"
// Whose screen it is: Auth's scheme (its sign-in form) and the names of Auth and Settings are never another feature's,
// loaded or not.
demoHost.reservedSchemes = ["auth": "auth", "settings": "settings"]
demoHost.reservedNames = ["Auth": "auth", "Settings": "settings"]
// Who may use each key, each by the features that use it today: an untrusted folder's feature gets the characters
// catalog and the session read-only, nothing that checks a password, creates or deletes an account, or reads what
// the person searched (`--grant FEATURE=KEY` or a trusted lock entry's "grants" give more by name).
demoHost.grants = [
    DemoKeys.session.id: .publicReadOnly(writers: ["auth"]),
    DemoKeys.page.id: .public,
    DemoKeys.detail.id: .public,
    DemoKeys.search.id: .public,
    DemoKeys.signIn.id: .only("auth"),
    DemoKeys.signUp.id: .only("auth"),
    DemoKeys.signOut.id: GrantRule(features: ["settings"], trust: .pinned),
    DemoKeys.deleteAccount.id: .only("settings"),
    DemoKeys.recentQueries.id: .only("search"),
    DemoKeys.saveRecentQuery.id: .only("search"),
    DemoKeys.clearRecentQueries.id: .only("search"),
]

// The process's environment (variables, folders, clock), read once here and passed down.
exit(await MicroappTool.main(host: demoHost, environment: .process))
