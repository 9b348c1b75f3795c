import MicroappSDK

/// The screens of Auth, each with its URL.
enum AuthRoute: FeatureRoute {
    /// Choose between signing in and creating an account.
    case select
    /// Email and password.
    case signIn
    /// Name, email and password twice.
    case signUp

    var url: String {
        switch self {
        case .select: "auth://select"
        case .signIn: "auth://sign-in"
        case .signUp: "auth://sign-up"
        }
    }

    init?(_ location: Location) {
        switch location.pattern {
        case AuthRoute.select.url: self = .select
        case AuthRoute.signIn.url: self = .signIn
        case AuthRoute.signUp.url: self = .signUp
        default: return nil
        }
    }
}
