import Foundation
import XCTest

/// A real slapd on 127.0.0.1 with the fixture directory (scripts/slapd-test.sh): one shared
/// by the whole test run, or throwaway ones for tests that stop theirs. A watchdog stops
/// each one when the test process ends, however it ends.
final class TestDirectory: @unchecked Sendable {
    let url: String
    let pid: Int32
    let folder: String
    let base: String
    let bindDN: String
    let bindPasswordFile: String
    let foremanGroup: String
    let posixForemanGroup: String

    nonisolated(unsafe) private static var sharedInstance: TestDirectory?
    private static let lock = NSLock()

    static func shared() throws -> TestDirectory {
        lock.lock()
        defer { lock.unlock() }
        if let sharedInstance { return sharedInstance }
        let directory = try TestDirectory()
        sharedInstance = directory
        return directory
    }

    static let script = Sandbox.repositoryRoot.appendingPathComponent("scripts/slapd-test.sh")

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-slapd-" + UUID().uuidString).path
        let result = try Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, "start", folder])
        guard result.status == 0 else {
            throw TestDirectoryError("scripts/slapd-test.sh start failed: \(result.output)")
        }
        var values: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            var value = String(assignment[assignment.index(after: equals)...])
            if value.hasPrefix("'"), value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
            values[String(assignment[..<equals])] = value
        }
        func value(_ key: String) throws -> String {
            guard let value = values[key] else { throw TestDirectoryError("slapd-test.sh printed no \(key): \(result.output)") }
            return value
        }
        url = try value("LDAP_TEST_URL")
        pid = Int32(try value("LDAP_TEST_PID")) ?? 0
        self.folder = try value("LDAP_TEST_DIR")
        base = try value("LDAP_TEST_BASE")
        bindDN = try value("LDAP_TEST_BIND_DN")
        bindPasswordFile = try value("LDAP_TEST_BIND_PASSWORD_FILE")
        foremanGroup = try value("LDAP_TEST_FOREMAN_GROUP")
        posixForemanGroup = try value("LDAP_TEST_POSIX_FOREMAN_GROUP")
        startWatchdog()
    }

    /// Stops slapd when this test process is gone.
    private func startWatchdog() {
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/bash")
        watchdog.arguments = ["-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; '\(Self.script.path)' stop '\(folder)' >/dev/null 2>&1"]
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try? watchdog.run()
    }

    /// Kills slapd but keeps its folder (the service password file stays readable).
    func kill() {
        Glibc.kill(pid, SIGTERM)
        for _ in 0..<100 where Glibc.kill(pid, 0) == 0 { usleep(50_000) }
    }

    func stop() {
        _ = try? Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, "stop", folder])
    }

    /// The fixture passwords (scripts/fixtures/directory.ldif).
    static func password(for user: String) -> String {
        switch user {
        case "carla": return #"p*(a)\s,s=w;o"r+d<>#"#
        case "o'brien.j-k": return "obrien-password"
        default: return "\(user)-password"
        }
    }
}

struct TestDirectoryError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
