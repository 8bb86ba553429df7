import Foundation
import MIKit
import TestSupport
import XCTest

/// `Server.Database` and `Server.DatabasePasswordFile`.
final class DatabaseConfigurationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "mikit-database-config")
    }

    override func tearDown() {
        directory = nil
    }

    private func check(_ edits: [ConfigEdit]) throws -> ConfigurationReport {
        ConfigurationLoader.check(try ConfigFixture.write(into: directory.url, edits))
    }

    private func settings(_ edits: [ConfigEdit]) throws -> Configuration.Server {
        let report = try check(edits)
        return try XCTUnwrap(report.configuration, "\(report.problems)").server
    }

    private func errors(_ edits: [ConfigEdit]) throws -> [String] { try check(edits).errors.map(\.description) }

    func testAbsentOrSqliteIsSQLite() throws {
        XCTAssertEqual(try settings([]).database, .sqlite)
        XCTAssertEqual(try settings([.set("Server.Database", "sqlite")]).database, .sqlite)
        XCTAssertNil(try settings([]).databasePasswordFile)
    }

    func testPostgresURLIsReadWithItsPartsAndThePasswordFileResolvedAgainstThePlistFolder() throws {
        let server = try settings([.set("Server.Database", "postgres://mi@db.example.com:6543/inspections"),
                                 .set("Server.DatabasePasswordFile", "secrets/db-password")])
        XCTAssertEqual(server.database, .postgres(.init(user: "mi", host: "db.example.com", port: 6543,
                                                        database: "inspections")))
        XCTAssertEqual(server.databasePasswordFile, directory.path("secrets", "db-password").path)
    }

    func testSigningKeyFileIsResolvedAgainstThePlistFolderAndAbsentByDefault() throws {
        XCTAssertNil(try settings([]).signingKeyFile)
        XCTAssertEqual(try settings([.set("Server.SigningKeyFile", "secrets/cluster.key")]).signingKeyFile,
                       directory.path("secrets", "cluster.key").path)
        XCTAssertEqual(try settings([.set("Server.SigningKeyFile", "/etc/mi/cluster.key")]).signingKeyFile, "/etc/mi/cluster.key")
    }

    func testTrustedProxiesAreIPAddressesInCanonicalForm() throws {
        XCTAssertEqual(try settings([]).trustedProxies, [])
        XCTAssertEqual(try settings([.set("Server.TrustedProxies", .array(["127.0.0.1", "0:0:0:0:0:0:0:1", " 10.0.0.2"]))]).trustedProxies,
                       ["127.0.0.1", "::1", "10.0.0.2"])
        XCTAssertEqual(IPAddressText.canonical("fe80::1"), "fe80::1")
        for bad in ["localhost", "10.0.0.0/8", "300.1.1.1", ""] {
            XCTAssertNil(IPAddressText.canonical(bad), bad)
        }
        let errors = try errors([.set("Server.TrustedProxies", .array(["127.0.0.1", "nginx.local"]))])
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertTrue(errors.first?.contains("TrustedProxies[1]") ?? false, "\(errors)")
        XCTAssertTrue(errors.first?.contains("\"nginx.local\" is not an IP address") ?? false, "\(errors)")
    }

    func testPortDefaultsTo5432AndPostgresqlSchemeIsAccepted() throws {
        XCTAssertEqual(try settings([.set("Server.Database", "postgresql://office@10.0.0.7/mi")]).database,
                       .postgres(.init(user: "office", host: "10.0.0.7", port: 5432, database: "mi")))
    }

    func testSSLModeRequireAndARootCertificateTurnOnVerifiedTLS() throws {
        let server = try settings([.set("Server.Database", "postgres://mi@db:5432/mi?sslmode=require&sslrootcert=ca.pem")])
        XCTAssertEqual(server.database, .postgres(.init(user: "mi", host: "db", port: 5432, database: "mi",
                                                        requireTLS: true, caFile: directory.path("ca.pem").path)))
        XCTAssertEqual(try settings([.set("Server.Database", "postgres://mi@db/mi?sslmode=disable")]).database,
                       .postgres(.init(user: "mi", host: "db", database: "mi", requireTLS: false)))
    }

    func testBadValuesAreRefusedNamingTheKeyAndWhatToWrite() throws {
        let cases: [(String, String)] = [
            ("mysql://mi@db/mi", "must be \"sqlite\" or a URL like postgres://mi@db.example.com:5432/mi, found \"mysql://mi@db/mi\""),
            ("SQLite", "must be \"sqlite\" or a URL like postgres://mi@db.example.com:5432/mi, found \"SQLite\""),
            ("postgres://mi:hunter2@db/mi", "must not hold the password: put it in the file Server.DatabasePasswordFile names"),
            ("postgres://db/mi", "names no user (expected postgres://mi@db.example.com:5432/mi), found \"postgres://db/mi\""),
            ("postgres://mi@db", "names no database after the host (expected postgres://mi@db.example.com:5432/mi), found \"postgres://mi@db\""),
            ("postgres://mi@db:0/mi", "has port 0, which is not between 1 and 65535"),
            ("postgres://mi@db/mi?sslmode=prefer", "sslmode must be \"disable\" or \"require\" (TLS, always verified), found \"prefer\""),
            ("postgres://mi@db/mi?timeout=3", "has the unknown parameter \"timeout\" (known: sslmode, sslrootcert)"),
            ("postgres://mi@db/mi?sslrootcert=ca.pem", "sslrootcert is given without sslmode=require: add it, or TLS is not used"),
        ]
        for (value, message) in cases {
            XCTAssertEqual(try errors([.set("Server.Database", .string(value))]), ["Server.Database: \(message)"], value)
        }
    }

    func testAPasswordFileWithSQLiteIsOnlyAWarning() throws {
        let report = try check([.set("Server.DatabasePasswordFile", "db-password")])
        XCTAssertNotNil(report.configuration)
        XCTAssertEqual(report.warnings.map(\.description),
                       ["Server.DatabasePasswordFile: ignored: Server.Database is not a postgres:// URL"])
    }
}
