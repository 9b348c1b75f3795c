import MicroappSDK

/// The rules a new account must meet, each failure a `ServiceError` a form can show under its field.
public enum AccountValidation {
    /// The trimmed name, or `invalid-name` when it is empty or longer than 100 characters.
    public static func name(_ name: String) throws(ServiceError) -> String {
        let trimmed = name.trimmingWhitespace
        guard !trimmed.isEmpty else { throw ServiceError(code: "invalid-name", message: "Enter your name") }
        guard trimmed.count <= 100, !trimmed.unicodeScalars.contains(where: \.isControl) else {
            throw ServiceError(code: "invalid-name", message: "Names are at most 100 characters, on one line")
        }
        return trimmed
    }

    /// The trimmed, lowercased email, or `invalid-email` unless it looks like `name@example.com`.
    public static func email(_ email: String) throws(ServiceError) -> String {
        let trimmed = email.trimmingWhitespace.lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        let labels = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
        guard parts.count == 2, !parts[0].isEmpty, labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }),
            trimmed.count <= 254, !trimmed.unicodeScalars.contains(where: { $0.isControl || $0 == " " })
        else {
            throw ServiceError(code: "invalid-email", message: "Enter an email such as name@example.com")
        }
        return trimmed
    }

    /// The password as given, or `weak-password` when shorter than 8 characters (`invalid-password` when
    /// libcrypt cannot take it: more than 512 bytes, or a NUL character).
    public static func password(_ password: String) throws(ServiceError) -> String {
        guard password.count >= 8 else {
            throw ServiceError(code: "weak-password", message: "Passwords need at least 8 characters")
        }
        guard PasswordHasher.isAcceptable(password) else {
            throw ServiceError(
                code: "invalid-password", message: "Passwords are at most 512 bytes and cannot contain NUL")
        }
        return password
    }
}

extension Unicode.Scalar {
    fileprivate var isControl: Bool { properties.generalCategory == .control }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
