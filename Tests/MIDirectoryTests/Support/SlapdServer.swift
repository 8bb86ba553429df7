import Foundation
import MIDirectory
import TestSupport

/// A throwaway slapd started by `scripts/slapd-test.sh` (its `LDAP_TEST_*` exports).
struct SlapdServer: Sendable {
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    var url: String
    var pid: Int32
    var directory: String
    var baseDN: String
    var bindDN: String
    var bindPassword: String
    var foremanGroup: String
    var posixForemanGroup: String
    /// The port the fixtures' referral points at; nothing listens there.
    var referralPort: UInt16
    /// Set when started with TLS.
    var caFile: String?
    /// The ldaps:// listener, when started with TLS.
    var ldapsURL: String?

    /// `<package>/scripts/slapd-test.sh`, found from this file's place in the package.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // MIDirectoryTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appendingPathComponent("scripts/slapd-test.sh")

    static func start(tls: Bool = false) throws -> SlapdServer {
        let output = try runScript(["start"] + (tls ? ["--tls"] : []))
        let exports = ShellExports.parse(output)
        func value(_ name: String) throws -> String {
            guard let value = exports[name] else {
                throw StartError(description: "slapd-test.sh printed no \(name) in:\n\(output)")
            }
            return value
        }
        guard let pid = Int32(try value("LDAP_TEST_PID")) else {
            throw StartError(description: "slapd-test.sh printed a bad LDAP_TEST_PID")
        }
        guard let referralPort = UInt16(try value("LDAP_TEST_REFERRAL_PORT")) else {
            throw StartError(description: "slapd-test.sh printed a bad LDAP_TEST_REFERRAL_PORT")
        }
        let passwordFile = try value("LDAP_TEST_BIND_PASSWORD_FILE")
        return SlapdServer(
            url: try value("LDAP_TEST_URL"),
            pid: pid,
            directory: try value("LDAP_TEST_DIR"),
            baseDN: try value("LDAP_TEST_BASE"),
            bindDN: try value("LDAP_TEST_BIND_DN"),
            bindPassword: try String(contentsOfFile: passwordFile, encoding: .utf8),
            foremanGroup: try value("LDAP_TEST_FOREMAN_GROUP"),
            posixForemanGroup: try value("LDAP_TEST_POSIX_FOREMAN_GROUP"),
            referralPort: referralPort,
            caFile: exports["LDAP_TEST_CA_FILE"],
            ldapsURL: exports["LDAP_TEST_LDAPS_URL"])
    }

    func stop() {
        _ = try? Self.runScript(["stop", directory])
    }

    func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// The settings an administrator would write for this directory: service account,
    /// `member` groups, 5 s timeout.
    func configuration() -> DirectoryConfiguration {
        DirectoryConfiguration(
            url: url,
            startTLS: false,
            caFile: nil,
            baseDN: baseDN,
            userFilter: "(&(objectClass=inetOrgPerson)(uid=%s))",
            bindDN: bindDN,
            bindPassword: bindPassword,
            foremanGroup: foremanGroup,
            groupMemberAttribute: "member",
            timeoutSeconds: 5)
    }

    private static func runScript(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw StartError(description: "slapd-test.sh \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
        return output
    }
}
