import MIDirectory
import XCTest

/// StartTLS and ldaps:// against a slapd with a certificate for IP 127.0.0.1 signed by a
/// throwaway CA: the certificate must verify (LDAP_OPT_X_TLS_REQUIRE_CERT = demand) against
/// LDAP.CAFile, set per connection (LDAP_OPT_X_TLS_NEWCTX).
final class DirectoryTLSTests: XCTestCase {
    private static let slapd = SlapdFixture(tls: true)

    override class func setUp() {
        super.setUp()
        slapd.start()
    }

    override class func tearDown() {
        slapd.stop()
        super.tearDown()
    }

    private func directory(_ change: (inout DirectoryConfiguration, SlapdServer) throws -> Void) throws -> LDAPDirectory {
        let server = try Self.slapd.server()
        var configuration = server.configuration()
        try change(&configuration, server)
        return LDAPDirectory(configuration: configuration)
    }

    private func assertHandshakeFails(_ directory: LDAPDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let error = assertDirectoryError(
            try directory.authenticate(user: "ana", password: "ana-password"), file: file, line: line)
        guard case .tlsHandshakeFailed(let url, _) = error else {
            return XCTFail("expected .tlsHandshakeFailed, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertEqual(url, directory.configuration.url, file: file, line: line)
        XCTAssertTrue(error?.errorDescription?.contains("LDAP.CAFile") ?? false, file: file, line: line)
    }

    func testStartTLSWithTheDirectorysCALogsIn() throws {
        let directory = try directory { configuration, server in
            configuration.startTLS = true
            configuration.caFile = server.caFile
        }
        XCTAssertEqual(try directory.authenticate(user: "fiona", password: "fiona-password").role, .foreman)
    }

    func testStartTLSWithAnUntrustedCertificateIsRefused() throws {
        assertHandshakeFails(try directory { configuration, _ in configuration.startTLS = true })
        assertHandshakeFails(try directory { configuration, _ in
            configuration.startTLS = true
            configuration.caFile = "/etc/ssl/certs/ca-certificates.crt"
        })
    }

    func testStartTLSToAHostTheCertificateDoesNotNameIsRefused() throws {
        assertHandshakeFails(try directory { configuration, server in
            configuration.url = server.url.replacing("127.0.0.1", with: "localhost")
            configuration.startTLS = true
            configuration.caFile = server.caFile
        })
    }

    func testLDAPSWithTheDirectorysCALogsIn() throws {
        let directory = try directory { configuration, server in
            configuration.url = try XCTUnwrap(server.ldapsURL)
            configuration.caFile = server.caFile
        }
        XCTAssertEqual(try directory.authenticate(user: "ana", password: "ana-password").displayName, "Ana Pérez")
    }

    func testLDAPSWithAnUntrustedCertificateIsRefused() throws {
        assertHandshakeFails(try directory { configuration, server in
            configuration.url = try XCTUnwrap(server.ldapsURL)
        })
    }
}
