import Foundation
import TestScratch
import Testing

/// A certificate authority of the test's own and a server certificate it signed for 127.0.0.1, made by the openssl
/// command at test time (P-256 keys: milliseconds), as a company's own authority and its server's certificate are.
enum TestCertificates {
    /// A server's identity: its certificate (signed by the authority) and its private key, PEM files.
    struct Server: Sendable {
        var certificate: String
        var key: String
    }

    /// Makes, in `folder`, an authority (`ca.pem`, named `name`) and a server certificate for 127.0.0.1 it signed;
    /// the authority's certificate file and the server's identity.
    static func make(in folder: String, name: String = "Test Company CA") async throws -> (
        authority: String, server: Server
    ) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await openssl(
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=\(name)"],
            in: folder)
        try await openssl(
            ["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"], in: folder)
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: folder + "/server.ext"))
        try await openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "2", "-extfile", "server.ext",
            ], in: folder)
        return (folder + "/ca.pem", Server(certificate: folder + "/server.pem", key: folder + "/server.key"))
    }

    private static func openssl(_ arguments: [String], in folder: String) async throws {
        let result = try await runToEnd(
            ["openssl"] + arguments, executable: "/usr/bin/env", in: URL(fileURLWithPath: folder))
        guard result.status == 0 else {
            throw AppProcessError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(result.err)")
        }
    }
}

/// `update` from a channel served over HTTPS by `openssl s_server`, whose certificate comes from an authority the
/// test made: as behind a company's own certificate authority.
@Suite("Updates from a channel over HTTPS behind a company's own certificate authority", .promptResumes)
struct HTTPSChannelTests {
    /// The variables that name certificate authorities, emptied (an empty one counts as unset): the test run's own,
    /// if it has any, must not decide what is trusted.
    static let none = ["SSL_CERT_FILE": "", "CURL_CA_BUNDLE": "", "SSL_CERT_DIR": ""]

    @Test(
        "refused while the authority is not trusted, naming the certificate problem and how to trust a CA; with SSL_CERT_FILE naming it the update installs; an unreadable CURL_CA_BUNDLE, which wins, is named"
    )
    func companyAuthority() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let made = try await TestCertificates.make(in: world.home + "/tls")
        let other = try await TestCertificates.make(in: world.home + "/other-tls", name: "Another CA")
        try await ChannelServer.servingTLS(world.home + "/served", as: made.server) { server in
            let url = server.baseURL + "/channel"
            #expect(url.hasPrefix("https://127.0.0.1:"))
            let untrusted = try await world.with(Self.none).refusedUpdate(from: url)
            #expect(
                untrusted.contains(
                    "\(url)/index.json: its server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate); checked against the system's store, /etc/ssl/certs"
                ), "\(untrusted)")
            #expect(untrusted.contains("your company's own certificate authority"), "\(untrusted)")
            #expect(untrusted.contains("`sudo update-ca-certificates`"), "\(untrusted)")
            #expect(untrusted.contains("SSL_CERT_FILE=FILE"), "\(untrusted)")
            #expect(!untrusted.contains("check the URL and your network"), "\(untrusted)")

            let wrong = try await world.with(Self.none.merging(["SSL_CERT_FILE": other.authority]) { $1 })
                .refusedUpdate(from: url)
            #expect(
                wrong.contains("checked against \(other.authority) (SSL_CERT_FILE) and the system's store"), "\(wrong)")

            let unreadable = world.home + "/no-such-ca.pem"
            let bad = try await world.with(
                Self.none.merging(["SSL_CERT_FILE": made.authority, "CURL_CA_BUNDLE": unreadable]) { $1 }
            ).refusedUpdate(from: url)
            #expect(bad.contains("certificate authorities in \(unreadable) (CURL_CA_BUNDLE)"), "\(bad)")
            #expect(bad.contains("cannot be read"), "\(bad)")

            let trusted = try await world.with(Self.none.merging(["SSL_CERT_FILE": made.authority]) { $1 })
                .microapp(["update", "--channel", url, "--plugins", world.plugins])
            #expect(trusted.status == 0, "\(trusted.out)\(trusted.err)")
            #expect(trusted.out.contains("installed tick 1 → 2"), "\(trusted.out)")
            #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(2)))
        }
    }
}
