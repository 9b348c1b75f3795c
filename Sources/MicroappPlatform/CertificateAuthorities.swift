import MicroappCore

/// The certificate authorities an HTTPS channel's server is checked against: the system's store (Debian's
/// `/etc/ssl/certs`, where `update-ca-certificates` puts a company's own authority), or what the variables people
/// already set for OpenSSL and curl name. `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`, names a PEM file of authorities
/// trusted beside the store's folder; `SSL_CERT_DIR` a hashed folder instead of the store's (`openssl rehash`).
public struct CertificateAuthorities: Sendable, Equatable {
    /// A file or folder one of the variables names.
    public struct Given: Sendable, Equatable {
        /// Its absolute path.
        public var path: String
        /// The variable that named it.
        public var variable: String
    }

    /// The PEM file given; nil: the system's bundle.
    public var file: Given?
    /// The hashed folder given (`SSL_CERT_DIR`); nil: the system's.
    public var folder: Given?

    /// The system's store alone.
    public static let system = CertificateAuthorities(file: nil, folder: nil)

    /// The authorities `file` and `folder` name, nil for the system's own.
    public init(file: Given?, folder: Given?) {
        self.file = file
        self.folder = folder
    }

    /// What `environment`'s variables name (an empty one counts as unset).
    public init(environment: HostEnvironment) {
        func given(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let variable = ["CURL_CA_BUNDLE", "SSL_CERT_FILE"].first { given($0) != nil }
        func named(_ name: String?) -> Given? {
            name.flatMap { name in given(name).map { Given(path: environment.absolutePath($0), variable: name) } }
        }
        self.init(file: named(variable), folder: named("SSL_CERT_DIR"))
    }

    /// Where a refusal for a server whose authority is not trusted says the trust came from.
    var described: String {
        var parts: [String] = []
        if let file { parts.append("\(file.path) (\(file.variable))") }
        parts.append(folder.map { "\($0.path) (\($0.variable))" } ?? "the system's store, /etc/ssl/certs")
        return parts.joined(separator: " and ")
    }
}
