import MicroappSDK

/// The text fields of one form: what was typed and the message under each field.
struct Form {
    /// One field: how it is shown, what it holds, what is wrong with it.
    struct Field {
        let id: String
        let label: String
        let isSecure: Bool
        var text = ""
        var error: String?
    }

    private(set) var fields: [Field]

    init(_ fields: [Field]) { self.fields = fields }

    /// The text of field `id`; setting it clears the field's message, as a person fixing it expects.
    subscript(id: String) -> String {
        get { fields.first { $0.id == id }?.text ?? "" }
        set {
            guard let index = fields.firstIndex(where: { $0.id == id }) else { return }
            fields[index].text = newValue
            fields[index].error = nil
        }
    }

    /// True when `id` is one of the form's fields.
    func contains(_ id: String) -> Bool { fields.contains { $0.id == id } }

    /// Sets each field's message from `rules` (field id → message or nil); true when no field has one.
    mutating func validate(_ rules: [String: String?]) -> Bool {
        for index in fields.indices {
            fields[index].error = rules[fields[index].id] ?? nil
        }
        return fields.allSatisfy { $0.error == nil }
    }

    /// Empties every field and its message: what a form holds must not outlive the session it was typed for.
    mutating func clear() {
        for index in fields.indices {
            fields[index].text = ""
            fields[index].error = nil
        }
    }

    /// The texts of the fields that are not secure, by id: what a hot swap keeps (passwords never leave).
    var draft: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.filter { !$0.isSecure }.map { ($0.id, $0.text) })
    }

    /// Puts back the texts of a `draft`, ignoring ids the form does not have and secure fields.
    mutating func restore(_ draft: [String: String]) {
        for index in fields.indices where !fields[index].isSecure {
            if let text = draft[fields[index].id] { fields[index].text = text }
        }
    }

    /// The fields as screen elements.
    var elements: [Element] {
        fields.map {
            .field(TextField(id: $0.id, label: $0.label, text: $0.text, isSecure: $0.isSecure, error: $0.error))
        }
    }
}

/// The rules the forms check before calling a service; each returns the message to show, or nil.
enum Validation {
    static let minimumPasswordLength = 8

    /// An email has the shape `name@domain.tld`.
    static func email(_ text: String) -> String? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        let domain = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
        let isValid =
            !parts[0].isEmpty && domain.count >= 2 && !domain.contains(where: \.isEmpty)
            && !text.contains(where: \.isWhitespace)
        return isValid ? nil : "Enter an email like name@example.com"
    }

    /// A password has at least `minimumPasswordLength` characters.
    static func password(_ text: String) -> String? {
        text.count >= minimumPasswordLength ? nil : "Use at least \(minimumPasswordLength) characters"
    }

    /// Signing in needs some password; its length is the account's business (the sign-up rule is not repeated).
    static func passwordGiven(_ text: String) -> String? {
        text.isEmpty ? "Enter your password" : nil
    }

    /// A name is not empty.
    static func name(_ text: String) -> String? {
        text.allSatisfy(\.isWhitespace) ? "Enter your name" : nil
    }

    /// The confirmation repeats the password.
    static func confirmation(_ text: String, of password: String) -> String? {
        text == password ? nil : "Passwords do not match"
    }
}
