import Foundation
import TestSupport
import XCTest

/// What one run of `mi` printed and returned.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var output: String { stdout + stderr }
}

/// A throwaway MI installation: a Config.plist, a store, sample templates, and a way to run the
/// real `mi` binary as a user would.
final class Sandbox: @unchecked Sendable {
    let root: URL
    let config: URL
    let documents: URL
    let repository: URL

    /// The repository's root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The built `mi`, next to the test bundle.
    static let binary: URL = {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("mi"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mi"),
            repositoryRoot.appendingPathComponent(".build/debug/mi"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }()

    let directory: TestDirectory

    let server: ServerSettings

    init(expiryDays: Int = 7, extraPlist: String = "", ldap: LDAPSettings = LDAPSettings(),
         directory: TestDirectory? = nil, server: ServerSettings = ServerSettings()) throws {
        self.server = server
        root = FileManager.default.temporaryDirectory.appendingPathComponent("mi-e2e-" + UUID().uuidString)
        repository = Self.repositoryRoot
        documents = root.appendingPathComponent("Documents")
        config = root.appendingPathComponent("Config.plist")
        self.directory = try directory ?? TestDirectory.shared()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.plist(expiryDays: expiryDays, extra: extraPlist, ldap: ldap, directory: self.directory, server: server)
            .write(to: config, atomically: true, encoding: .utf8)
    }

    /// LDAP settings a test may vary.
    struct LDAPSettings {
        var startTLS = false
        var posixGroup = false
        var url: String?
        var timeoutSeconds = 3
    }

    /// mi-server settings a test may vary; the port is chosen free when the sandbox is made.
    struct ServerSettings {
        var port = Sandbox.freePort()
        /// `Server.Scheme`: "https" when the test gives mi-server a certificate.
        var scheme = "http"
        var maxUploadBytes = 2 << 30
        /// Where mi-server listens when it is not `port` (a proxy listens on `port` then).
        var listenPort: Int?
        /// More `Server` keys, as plist XML.
        var extraKeys = ""
    }

    /// A TCP port nobody listens on right now.
    static func freePort() -> Int { Int(LoopbackPort.free() ?? 0) }

    deinit { try? FileManager.default.removeItem(at: root) }

    static func plist(expiryDays: Int, extra: String, ldap: LDAPSettings, directory: TestDirectory,
                      server: ServerSettings) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>Server</key><dict>
            <key>Scheme</key><string>\(server.scheme)</string><key>Domain</key><string>127.0.0.1</string><key>Port</key><integer>\(server.port)</integer>
            <key>Listen</key><string>127.0.0.1:\(server.listenPort ?? server.port)</string>
            <key>TemplatesDirectory</key><string>server-templates</string>
            <key>DataDirectory</key><string>server-data</string>
            <key>MaxUploadBytes</key><integer>\(server.maxUploadBytes)</integer>
            \(server.extraKeys)
          </dict>
          <key>LDAP</key><dict>
            <key>URL</key><string>\(ldap.url ?? directory.url)</string>
            <key>StartTLS</key><\(ldap.startTLS ? "true" : "false")/>
            <key>BaseDN</key><string>\(directory.base)</string>
            <key>UserFilter</key><string>(&amp;(objectClass=inetOrgPerson)(uid=%s))</string>
            <key>BindDN</key><string>\(directory.bindDN)</string>
            <key>BindPasswordFile</key><string>\(directory.bindPasswordFile)</string>
            <key>ForemanGroup</key><string>\(ldap.posixGroup ? directory.posixForemanGroup : directory.foremanGroup)</string>
            <key>GroupMemberAttribute</key><string>\(ldap.posixGroup ? "memberUid" : "member")</string>
            <key>TimeoutSeconds</key><integer>\(ldap.timeoutSeconds)</integer>
          </dict>
          <key>Documents</key><string>Documents</string>
          <key>ExpiryDays</key><integer>\(expiryDays)</integer>
          <key>ReminderDays</key><array><integer>1</integer><integer>2</integer></array>
          \(extra)
        </dict></plist>
        """
    }

    /// Runs `mi ARGS` as `user` — logged in for real against the test directory on first use —
    /// or, with nil, with no session at all; `stdin` is piped in.
    @discardableResult
    func run(_ arguments: [String], as user: String? = "ana", stdin: String? = nil,
             environment: [String: String] = [:]) throws -> RunResult {
        if let user { try ensureLoggedIn(user) }
        return try Self.execute(Self.binary, arguments, stdin: stdin,
                                environment: self.environment(for: user).merging(environment) { $1 }, in: root)
    }

    /// `mi login` as `user` with the fixture password, once per sandbox.
    func ensureLoggedIn(_ user: String) throws {
        let session = stateFolder(for: user).appendingPathComponent("mi/session.json")
        guard !FileManager.default.fileExists(atPath: session.path) else { return }
        let result = try Self.execute(Self.binary, ["login", "--user", user, "--password-stdin"],
                                      stdin: TestDirectory.password(for: user) + "\n",
                                      environment: environment(for: user), in: root)
        XCTAssertEqual(result.status, 0, "login as \(user): \(result.output)")
    }

    /// Each user has their own state folder, so several can be logged in at once.
    func stateFolder(for user: String?) -> URL {
        root.appendingPathComponent("state").appendingPathComponent(user ?? "nobody")
    }

    func environment(for user: String?) -> [String: String] {
        var environment = baseEnvironment
        environment["XDG_STATE_HOME"] = stateFolder(for: user).path
        return environment
    }

    /// Starts `mi ARGS` as `user` on a new pseudo-terminal (TERM=xterm); with `plainLocale`
    /// (the default) LANG and LC_ALL/LC_CTYPE are unset, as on a bare console.
    func startOnTerminal(_ arguments: [String], as user: String = "ana", plainLocale: Bool = true) throws -> (Process, PseudoTerminal) {
        try ensureLoggedIn(user)
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = environment(for: user)
        environment["TERM"] = "xterm"
        if plainLocale { for name in ["LANG", "LC_ALL", "LC_CTYPE"] { environment[name] = nil } }
        process.environment = environment
        process.currentDirectoryURL = root
        try terminal.run(process)
        return (process, terminal)
    }

    /// Starts `mi ARGS` without waiting, for kill tests.
    func start(_ arguments: [String], as user: String = "ana") throws -> Process {
        try ensureLoggedIn(user)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment(for: user)
        process.currentDirectoryURL = root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    var baseEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["MI_CONFIG"] = config.path
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["COLUMNS"] = "160"
        environment["MI_LOCK_TIMEOUT"] = "20"
        return environment
    }

    static func execute(_ executable: URL, _ arguments: [String], stdin: String? = nil,
                        environment: [String: String]? = nil, in folder: URL? = nil) throws -> RunResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mi-run-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let folder { process.currentDirectoryURL = folder }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return RunResult(status: process.terminationStatus,
                         stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    // MARK: - Store helpers

    func importSamples(as user: String = "ana") throws {
        let result = try run(["templates", "import", repository.appendingPathComponent("Samples/templates").path], as: user)
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// Starts a form and returns its name.
    func newForm(_ template: String = "pump-inspection", as user: String = "ana", name: String? = nil) throws -> String {
        var arguments = ["new", template, "--json"]
        if let name { arguments += ["--name", name] }
        let result = try run(arguments, as: user)
        XCTAssertEqual(result.status, 0, result.output)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["name"] as? String)
    }

    func formFolder(_ name: String, in area: String = "Users", user: String = "ana") -> URL {
        documents.appendingPathComponent(area).appendingPathComponent(user).appendingPathComponent(name)
    }

    func formJSON(_ name: String, in area: String = "Users", user: String = "ana") throws -> [String: Any] {
        let data = try Data(contentsOf: formFolder(name, in: area, user: user).appendingPathComponent("form.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Every form.json under Documents, by relative path.
    func allFormFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: documents.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix("/form.json") }.sorted()
    }
}
