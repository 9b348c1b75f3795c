import MicroappSDK

extension AuthFeature {
    /// Every screen of Auth in every state it shows, reached on its mocks the way a person reaches them: the
    /// welcome screen; each form empty, with field errors, submitting, refused (alert) and failing (error).
    @MainActor public static func previews() async throws -> [ScreenPreview] {
        var previews = [try RootDriver(Self.self, open: AuthRoute.select.url).preview()]
        previews += try await formPreviews(
            AuthRoute.signIn, invalid: ["email": "rick@", "password": ""],
            refused: ["email": MockAccount.rick.session.email, "password": "not-the-password"],
            accepted: ["email": MockAccount.rick.session.email, "password": MockAccount.rick.password],
            service: AuthKeys.signIn.id)
        previews += try await formPreviews(
            AuthRoute.signUp, invalid: ["name": " ", "email": "squanchy", "password": "short", "confirm": "other"],
            refused: [
                "name": "Rick", "email": MockAccount.rick.session.email, "password": "portal-gun",
                "confirm": "portal-gun",
            ],
            accepted: [
                "name": "Squanchy", "email": "squanchy@example.com", "password": "squanch-it", "confirm": "squanch-it",
            ],
            service: AuthKeys.signUp.id)
        return previews
    }

    /// One form: empty, with every field's message, submitting, refused by the service, and the service failing.
    @MainActor private static func formPreviews(
        _ route: AuthRoute, invalid: [String: String], refused: [String: String], accepted: [String: String],
        service: String
    ) async throws -> [ScreenPreview] {
        let form = try RootDriver(Self.self, open: route.url)
        var previews = [form.preview()]
        try fill(form, invalid)
        previews.append(form.preview("field errors"))
        try fill(form, refused)
        previews.append(form.preview())
        try await form.next(.alert)
        previews.append(form.preview())
        let failing = try RootDriver(Self.self, open: route.url, mocks: [service: "failing"])
        try fill(failing, accepted)
        try await failing.next(.error)
        previews.append(failing.preview())
        return previews
    }

    /// Types `texts` into their fields (in field order) and taps submit.
    @MainActor private static func fill(_ form: RootDriver, _ texts: [String: String]) throws {
        for element in form.screen.interactiveElements {
            guard case .field(let field) = element, let text = texts[field.id] else { continue }
            try form.send(.input(id: field.id, text: text))
        }
        try form.send(.tap(id: "submit"))
    }
}
