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
                dataDirectory: arguments.value("--data"), charactersURL: arguments.value("--characters-url"))
        }
    })
// Auth alone writes the session and signs people in: a library that claims either is refused, and Auth runs on.
demoHost.stateOwners = ["session": "auth"]
demoHost.signInFeature = "auth"
// Whose screen it is: Auth's scheme (its sign-in form) and the names of Auth and Settings are never another feature's,
// loaded or not.
demoHost.reservedSchemes = ["auth": "auth", "settings": "settings"]
demoHost.reservedNames = ["Auth": "auth", "Settings": "settings"]

exit(await MicroappTool.main(host: demoHost))
