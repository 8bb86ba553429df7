import Crypto
import Foundation
import MIKit
import TestSupport
import XCTest

/// `mi-server backup`, `restore` and `backup --verify` against real servers: archives taken while
/// eight clients (curl and `mi upload`) keep uploading, on SQLite and on two servers on
/// PostgreSQL behind nginx, restored into fresh servers and checked against the receipts the
/// clients got; damaged archives refused naming the file; SQLite ⇄ PostgreSQL restores.
final class BackupTests: XCTestCase {
    static let serverBinary = Sandbox.binary.deletingLastPathComponent().appendingPathComponent("mi-server")

    static func miServer(_ arguments: [String], in sandbox: Sandbox) throws -> RunResult {
        try Sandbox.execute(serverBinary, arguments, in: sandbox.root)
    }

    static func sha256(_ url: URL) throws -> String { FileDigest.sha256(of: try Data(contentsOf: url)) }

    /// Templates (one with pictures) in the server's folder.
    static func prepareTemplates(_ sandbox: Sandbox, samples: Bool = true) throws {
        if samples { try ServerTests.prepare(sandbox) }
        let templates = sandbox.root.appendingPathComponent("server-templates")
        for name in ["mmse.json", "mmse"] {
            try FileManager.default.copyItem(at: sandbox.repository.appendingPathComponent("Samples/templates/\(name)"),
                                             to: templates.appendingPathComponent(name))
        }
    }

    /// A Config.plist for a restore target: its own data and templates folders and port, on
    /// SQLite or on `postgres` (database, password file).
    static func targetConfig(_ sandbox: Sandbox, name: String, postgres: (DatabaseLocation.Postgres, String)? = nil) throws -> (URL, Int) {
        var settings = Sandbox.ServerSettings()
        if let (database, passwordFile) = postgres {
            settings.extraKeys = """
                <key>Database</key><string>postgres://\(database.user)@127.0.0.1:\(database.port)/\(database.database)</string>
                <key>DatabasePasswordFile</key><string>\(passwordFile)</string>
                """
        }
        let text = Sandbox.plist(expiryDays: 7, extra: "", ldap: .init(), directory: sandbox.directory, server: settings)
            .replacingOccurrences(of: "<string>server-data</string>", with: "<string>\(name)-data</string>")
            .replacingOccurrences(of: "<string>server-templates</string>", with: "<string>\(name)-templates</string>")
        let url = sandbox.root.appendingPathComponent("\(name).plist")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return (url, settings.port)
    }

    static func token(_ user: String, port: Int) throws -> String {
        let credentials = try JSONSerialization.data(withJSONObject: ["user": user, "password": TestDirectory.password(for: user)])
        let login = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                        ["-sS", "-X", "POST", "-H", "Content-Type: application/json",
                                         "--data-binary", String(decoding: credentials, as: UTF8.self),
                                         "http://127.0.0.1:\(port)/api/v1/session"])
        let session = try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(session?["token"] as? String, login.output)
    }

    /// GET `path` with the token: status and body.
    static func get(_ path: String, port: Int, token: String) throws -> (status: Int, body: Data) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mi-get-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                      ["-sS", "-o", scratch.path, "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                                       "http://127.0.0.1:\(port)\(path)"])
        return (Int(run.stdout) ?? -1, (try? Data(contentsOf: scratch)) ?? Data())
    }

    /// POSTs a form folder as `curl -F` does: status and body.
    static func post(_ folder: URL, port: Int, token: String) throws -> (status: Int, body: Data) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mi-post-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let run = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                      ["-sS", "-o", scratch.path, "-w", "%{http_code}"] + curlForm(folder, token: token)
                                        + ["http://127.0.0.1:\(port)/api/v1/submissions"])
        return (Int(run.stdout) ?? -1, (try? Data(contentsOf: scratch)) ?? Data())
    }

    static func curlForm(_ folder: URL, token: String) -> [String] {
        var arguments = ["-H", "Authorization: Bearer \(token)",
                         "-F", "form=@\(folder.appendingPathComponent("form.json").path);type=application/json"]
        for media in Files.names(in: folder) where media != "form.json" {
            arguments += ["-F", "\(media)=@\(folder.appendingPathComponent(media).path);filename=\(media)"]
        }
        return arguments
    }

    /// Copies of a completed form folder, each a new form (new id; `name` with a suffix).
    static func copies(of folder: URL, id: String, name: String, count: Int, into parent: URL, prefix: String) throws -> [(URL, String)] {
        let original = try String(contentsOf: folder.appendingPathComponent("form.json"), encoding: .utf8)
        var made: [(URL, String)] = []
        for index in 0..<count {
            let newName = "\(name)-\(prefix)\(index)"
            let copy = parent.appendingPathComponent(newName)
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let newID = UUID().uuidString.lowercased()
            try original.replacingOccurrences(of: id.uppercased(), with: newID.uppercased()).replacingOccurrences(of: id, with: newID)
                .replacingOccurrences(of: "\"name\":\"\(name)\"", with: "\"name\":\"\(newName)\"")
                .replacingOccurrences(of: "\"name\" : \"\(name)\"", with: "\"name\" : \"\(newName)\"")
                .write(to: copy.appendingPathComponent("form.json"), atomically: true, encoding: .utf8)
            for media in Files.names(in: folder) where media != "form.json" {
                try FileManager.default.copyItem(at: folder.appendingPathComponent(media), to: copy.appendingPathComponent(media))
            }
            made.append((copy, newID))
        }
        return made
    }

    /// One uploading client's log line: what, HTTP status (or `mi`'s exit status), start, end.
    struct Upload {
        var id: String
        var ok: Bool
        var start: Double
        var end: Double
    }

    /// Eight clients uploading continuously until `stop` exists: six with curl (folders), two
    /// with `mi upload` (forms in the store). Returns the processes and their logs.
    final class Load {
        let processes: [Process]
        let logs: [URL]
        let stop: URL
        let ids: [String: String]

        init(sandbox: Sandbox, port: Int, token: String, curlFolders: [[(URL, String)]], miForms: [[(String, String)]]) throws {
            stop = sandbox.root.appendingPathComponent("stop-load")
            var processes: [Process] = []
            var logs: [URL] = []
            var ids: [String: String] = [:]
            let now = #"$(date +%s.%N)"#
            for (index, folders) in curlFolders.enumerated() {
                let log = sandbox.root.appendingPathComponent("load-curl-\(index).log")
                var script = ""
                for (folder, id) in folders {
                    let arguments = (["-sS", "-o", "/dev/null", "-w", "%{http_code}"] + BackupTests.curlForm(folder, token: token)
                        + ["http://127.0.0.1:\(port)/api/v1/submissions"]).map(Self.quote).joined(separator: " ")
                    script += """
                        [ -e \(Self.quote(stop.path)) ] && exit 0
                        s=\(now); c=$(curl \(arguments)); e=\(now); echo "\(id) $c $s $e" >> \(Self.quote(log.path))

                        """
                }
                processes.append(try Self.start(script, environment: nil))
                logs.append(log)
            }
            for (index, forms) in miForms.enumerated() {
                let log = sandbox.root.appendingPathComponent("load-mi-\(index).log")
                var script = ""
                for (name, id) in forms {
                    ids[name] = id
                    script += """
                        [ -e \(Self.quote(stop.path)) ] && exit 0
                        s=\(now); \(Self.quote(Sandbox.binary.path)) upload \(Self.quote("ana/" + name)) >/dev/null 2>>\(Self.quote(log.path)).err; c=$?; [ $c = 0 ] && c=201; e=\(now); echo "\(id) $c $s $e" >> \(Self.quote(log.path))

                        """
                }
                processes.append(try Self.start(script, environment: sandbox.environment(for: "fiona")))
                logs.append(log)
            }
            self.processes = processes
            self.logs = logs
            self.ids = ids
        }

        static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

        private static func start(_ script: String, environment: [String: String]?) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script]
            if let environment { process.environment = environment }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }

        var uploads: [Upload] {
            logs.flatMap { log in
                ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> Upload? in
                    let fields = line.split(separator: " ").map(String.init)
                    guard fields.count == 4, let start = Double(fields[2]), let end = Double(fields[3]) else { return nil }
                    return Upload(id: fields[0], ok: fields[1] == "201" || fields[1] == "200", start: start, end: end)
                }
            }
        }

        func waitForReceipts(_ count: Int) {
            let deadline = Date().addingTimeInterval(60)
            while uploads.filter(\.ok).count < count && Date() < deadline { usleep(100_000) }
        }

        func finish() {
            _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
            for process in processes { process.waitUntilExit() }
        }

        deinit {
            _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
            for process in processes where process.isRunning { process.terminate() }
        }
    }

    /// `mi-server backup --output -` read slowly (about 300 KB/s) into `archive`, so uploads go on
    /// for seconds while the archive is written. Returns the backup's start and end times.
    static func slowBackup(config: URL, into archive: URL, sandbox: Sandbox) throws -> (start: Double, end: Double, stderr: String) {
        let script = """
            set -o pipefail
            \(Load.quote(serverBinary.path)) backup --config \(Load.quote(config.path)) --output - | python3 -c '
            import sys, time
            out = open(sys.argv[1], "wb")
            while True:
                chunk = sys.stdin.buffer.read(65536)
                if not chunk:
                    break
                out.write(chunk)
                time.sleep(0.2)
            ' \(Load.quote(archive.path))
            """
        let start = Date().timeIntervalSince1970
        let run = try Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: sandbox.root)
        let end = Date().timeIntervalSince1970
        XCTAssertEqual(run.status, 0, run.output)
        return (start, end, run.stderr)
    }

    /// The base form for copies: a completed extinguisher check with a photo, in the store.
    func baseForm(_ sandbox: Sandbox, name: String) throws -> (folder: URL, id: String) {
        let name = try ServerTests.completedForm(sandbox, name: name)
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        return (sandbox.formFolder(name, in: "CompletedMIs"), id)
    }

    /// Under load: the clients' folders and store forms, the backup in the middle, the archive
    /// restored into `target`, and every check the issue names.
    func runUnderLoad(sandbox: Sandbox, backupConfig: URL, uploadPort: Int, originalPort: Int,
                      target: (config: URL, port: Int)) throws {
        let (folder, id) = try baseForm(sandbox, name: "load")
        let scratch = sandbox.root.appendingPathComponent("clients")
        let curlFolders = try (0..<6).map { client in
            try Self.copies(of: folder, id: id, name: "load", count: 40, into: scratch, prefix: "c\(client)-")
        }
        let store = folder.deletingLastPathComponent()
        let miForms = try (0..<2).map { client in
            try Self.copies(of: folder, id: id, name: "load", count: 12, into: store, prefix: "m\(client)-").map {
                ($0.0.lastPathComponent, $0.1)
            }
        }
        let spare = try Self.copies(of: folder, id: id, name: "load", count: 1, into: scratch, prefix: "spare")[0]
        try sandbox.ensureLoggedIn("fiona")
        let token = try Self.token("fiona", port: uploadPort)
        let load = try Load(sandbox: sandbox, port: uploadPort, token: token, curlFolders: curlFolders, miForms: miForms)
        load.waitForReceipts(30)
        let archive = sandbox.root.appendingPathComponent("load.tar")
        let backup = try Self.slowBackup(config: backupConfig, into: archive, sandbox: sandbox)
        load.finish()
        XCTAssertTrue(backup.stderr.contains("mi-server backup: "), backup.stderr)

        let uploads = load.uploads
        let before = uploads.filter { $0.ok && $0.end < backup.start }
        let during = uploads.filter { $0.ok && $0.end > backup.start && $0.end < backup.end }
        XCTAssertGreaterThanOrEqual(before.count, 30)
        XCTAssertGreaterThan(during.count, 0, "uploads went on while the backup ran")
        XCTAssertTrue(uploads.contains { !$0.ok } == false, "every upload was stored: \(uploads.filter { !$0.ok }.map(\.id))")
        XCTAssertTrue(uploads.contains { $0.id == miForms[0][0].1 && $0.ok }, "`mi upload` clients uploaded")
        let slowest = uploads.filter { $0.end > backup.start && $0.start < backup.end }.map { $0.end - $0.start }.max() ?? 0
        XCTAssertLessThan(slowest, 10, "no upload waited for the backup")

        let verify = try Self.miServer(["backup", "--verify", archive.path], in: sandbox)
        XCTAssertEqual(verify.status, 0, verify.output)

        let restore = try Self.miServer(["restore", "--config", target.config.path, "--from", archive.path], in: sandbox)
        XCTAssertEqual(restore.status, 0, restore.output)
        let restored = try RunningServer(sandbox, config: target.config)
        defer { _ = restored }
        let restoredToken = try Self.token("fiona", port: target.port)
        let originalToken = try Self.token("fiona", port: originalPort)
        for upload in before {
            let original = try Self.get("/api/v1/submissions/\(upload.id)", port: originalPort, token: originalToken)
            let copy = try Self.get("/api/v1/submissions/\(upload.id)", port: target.port, token: restoredToken)
            XCTAssertEqual(copy.status, 200, "submission \(upload.id), receipt given before the backup, is restored")
            XCTAssertEqual(copy.body, original.body, "its receipt (every part's size and SHA-256) is the same")
        }
        // Every restored submission is whole: each part on disk with its receipt's SHA-256, and
        // none was committed after the backup ended.
        let data = sandbox.root.appendingPathComponent(target.config.deletingPathExtension().lastPathComponent + "-data/submissions")
        let restoredIDs = Files.names(in: data)
        XCTAssertGreaterThanOrEqual(restoredIDs.count, before.count)
        let okBeforeEnd = Set(uploads.filter { $0.ok && $0.start < backup.end }.map(\.id))
        for restoredID in restoredIDs {
            XCTAssertTrue(okBeforeEnd.contains(restoredID) || restoredID == id, "\(restoredID) was uploaded before the backup ended")
            let receipt = try Self.get("/api/v1/submissions/\(restoredID)", port: target.port, token: restoredToken)
            XCTAssertEqual(receipt.status, 200)
            let parts = (try JSONSerialization.jsonObject(with: receipt.body) as? [String: Any])?["parts"] as? [[String: Any]] ?? []
            XCTAssertEqual(parts.count, 2, "form.json and the photo")
            XCTAssertEqual(Set(Files.names(in: data.appendingPathComponent(restoredID))), Set(parts.compactMap { $0["filename"] as? String }))
            for part in parts {
                let file = data.appendingPathComponent(restoredID).appendingPathComponent(part["filename"] as? String ?? "?")
                XCTAssertEqual(try Self.sha256(file), part["sha256"] as? String, "\(restoredID)/\(part["filename"] ?? "")")
            }
        }
        // The restored server takes new uploads, and a form it holds gets its stored receipt.
        let fresh = try Self.post(spare.0, port: target.port, token: restoredToken)
        XCTAssertEqual(fresh.status, 201, String(decoding: fresh.body, as: UTF8.self))
        let heldFolder = try XCTUnwrap(curlFolders.joined().first { folder in before.contains { $0.id == folder.1 } })
        let again = try Self.post(heldFolder.0, port: target.port, token: restoredToken)
        XCTAssertEqual(again.status, 200, String(decoding: again.body, as: UTF8.self))
        XCTAssertEqual(again.body, try Self.get("/api/v1/submissions/\(heldFolder.1)", port: originalPort, token: originalToken).body)
    }

    func testBackupUnderLoadOnSQLiteRestoresEverySubmissionWithItsReceipt() throws {
        let sandbox = try Sandbox()
        try Self.prepareTemplates(sandbox)
        let server = try RunningServer(sandbox)
        defer { _ = server }
        let target = try Self.targetConfig(sandbox, name: "restored")
        try runUnderLoad(sandbox: sandbox, backupConfig: sandbox.config, uploadPort: sandbox.server.port,
                         originalPort: sandbox.server.port, target: target)
        // The templates folder, pictures too, came back byte for byte.
        let original = sandbox.root.appendingPathComponent("server-templates")
        let restored = sandbox.root.appendingPathComponent("restored-templates")
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: original.path)).sorted()
        XCTAssertTrue(files.contains { $0.hasPrefix("mmse/") && $0.hasSuffix(".png") || $0.hasPrefix("mmse/") }, "\(files)")
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: restored.path).sorted(), files)
        for file in files where !file.hasSuffix("mmse") {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: original.appendingPathComponent(file).path, isDirectory: &isFolder), !isFolder.boolValue {
                XCTAssertEqual(try Self.sha256(restored.appendingPathComponent(file)), try Self.sha256(original.appendingPathComponent(file)), file)
            }
        }
    }

    func testBackupUnderLoadOfTwoServersOnPostgresBehindNginxRestoresIntoAFreshServer() throws {
        let cluster = try Cluster()
        try Self.prepareTemplates(cluster.sandbox, samples: false)
        let target = try Self.targetConfig(cluster.sandbox, name: "restored",
                                           postgres: (try cluster.postgres.makeDatabase(), cluster.postgres.passwordFile))
        try runUnderLoad(sandbox: cluster.sandbox, backupConfig: cluster.configs[0], uploadPort: cluster.nginx.port,
                         originalPort: cluster.nginx.port, target: target)
    }

    // MARK: - Damaged archives

    /// The byte offset and size of `path`'s data in a tar archive.
    static func entry(_ path: String, in archive: Data) -> (offset: Int, size: Int)? {
        var offset = 0
        var longName: String?
        while offset + 512 <= archive.count {
            let header = archive[offset..<(offset + 512)]
            if header.allSatisfy({ $0 == 0 }) { return nil }
            let name = String(decoding: header.prefix(100).prefix { $0 != 0 }, as: UTF8.self)
            let sizeText = String(decoding: header.dropFirst(124).prefix(11), as: UTF8.self)
            let size = Int(sizeText, radix: 8) ?? 0
            let type = header[header.startIndex + 156]
            let data = offset + 512
            if type == UInt8(ascii: "x") {
                let body = String(decoding: archive[data..<(data + size)], as: UTF8.self)
                longName = body.components(separatedBy: "path=").dropFirst().first?.components(separatedBy: "\n").first
            } else {
                if (longName ?? name) == path { return (data, size) }
                longName = nil
            }
            offset = data + (size + 511) / 512 * 512
        }
        return nil
    }

    func testDamagedTruncatedAndLyingArchivesAreRefusedNamingTheFileAndLeaveTheTargetEmpty() throws {
        let sandbox = try Sandbox()
        try Self.prepareTemplates(sandbox)
        let server = try RunningServer(sandbox)
        let (folder, id) = try baseForm(sandbox, name: "damage")
        let token = try Self.token("fiona", port: sandbox.server.port)
        let forms = try Self.copies(of: folder, id: id, name: "damage", count: 3, into: sandbox.root.appendingPathComponent("f"), prefix: "")
        for (folder, _) in forms { XCTAssertEqual(try Self.post(folder, port: sandbox.server.port, token: token).status, 201) }
        let archive = sandbox.root.appendingPathComponent("good.tar")
        let backup = try Self.miServer(["backup", "--config", sandbox.config.path, "--output", archive.path], in: sandbox)
        XCTAssertEqual(backup.status, 0, backup.output)
        XCTAssertTrue(backup.stderr.contains("3 submissions, "), backup.stderr)
        server.kill9()
        let good = try Data(contentsOf: archive)
        // Standard tar reads it.
        let listing = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/tar"), ["-tf", archive.path])
        XCTAssertEqual(listing.status, 0, listing.output)
        XCTAssertTrue(listing.stdout.hasPrefix("mi-backup/format.json\nmi-backup/submissions.jsonl\nmi-backup/review.jsonl\nmi-backup/audit.jsonl\ntemplates/"), listing.stdout)
        XCTAssertTrue(listing.stdout.hasSuffix("mi-backup/manifest.json\n"), listing.stdout)
        XCTAssertFalse(listing.stdout.contains("secrets/"), "no signing key without --include-secrets")

        let photo = "submissions/\(forms[1].1)/Qid2(1).jpg"
        let (offset, size) = try XCTUnwrap(Self.entry(photo, in: good), listing.stdout)
        var flipped = good
        flipped[offset + size / 2] ^= 0x40
        let truncated = good.prefix(offset + size / 2)
        let manifest = try XCTUnwrap(Self.entry("mi-backup/manifest.json", in: good))
        var lying = good
        let manifestText = String(decoding: good[manifest.offset..<(manifest.offset + manifest.size)], as: UTF8.self)
        let realHash = try XCTUnwrap(manifestText.components(separatedBy: "\"path\":\"\(photo)\",\"sha256\":\"").dropFirst().first?.prefix(64))
        let fakeHash = String(realHash.map { $0 == "0" ? "1" : "0" })
        let lyingText = manifestText.replacingOccurrences(of: "\"path\":\"\(photo)\",\"sha256\":\"\(realHash)",
                                                          with: "\"path\":\"\(photo)\",\"sha256\":\"\(fakeHash)")
        XCTAssertNotEqual(lyingText, manifestText)
        lying.replaceSubrange(manifest.offset..<(manifest.offset + manifest.size), with: Data(lyingText.utf8))

        for (label, bytes, expected) in [("flipped", flipped, photo), ("truncated", Data(truncated), photo), ("lying", lying, photo)] {
            let bad = sandbox.root.appendingPathComponent("\(label).tar")
            try bytes.write(to: bad)
            let verify = try Self.miServer(["backup", "--verify", bad.path], in: sandbox)
            XCTAssertEqual(verify.status, 65, "\(label): \(verify.output)")
            XCTAssertTrue(verify.stderr.contains(expected), "\(label): \(verify.stderr)")
            let (config, _) = try Self.targetConfig(sandbox, name: "target-\(label)")
            let restore = try Self.miServer(["restore", "--config", config.path, "--from", bad.path], in: sandbox)
            XCTAssertEqual(restore.status, 65, "\(label): \(restore.output)")
            XCTAssertTrue(restore.stderr.contains(expected), "\(label): \(restore.stderr)")
            XCTAssertEqual(restore.stderr.split(separator: "\n").count, 1, "one message: \(restore.stderr)")
            XCTAssertFalse(Files.exists(sandbox.root.appendingPathComponent("target-\(label)-data")), "\(label): the data directory is left absent")
            XCTAssertFalse(Files.exists(sandbox.root.appendingPathComponent("target-\(label)-templates")), "\(label): no templates")
        }
        // An empty data directory that exists stays, empty.
        let (emptyConfig, _) = try Self.targetConfig(sandbox, name: "existing")
        let existing = sandbox.root.appendingPathComponent("existing-data")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        let refused = try Self.miServer(["restore", "--config", emptyConfig.path, "--from", sandbox.root.appendingPathComponent("flipped.tar").path], in: sandbox)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertEqual(Files.names(in: existing), [])

        // A non-empty target is refused before anything is read, and kept as it was.
        let before = try FileManager.default.subpathsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data").path).sorted()
        let occupied = try Self.miServer(["restore", "--config", sandbox.config.path, "--from", archive.path], in: sandbox)
        XCTAssertEqual(occupied.status, 69, occupied.output)
        XCTAssertTrue(occupied.stderr.contains("is not empty") || occupied.stderr.contains("not empty"), occupied.stderr)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data").path).sorted(), before)

        // The good archive restores; with --include-secrets the signing key comes along, and the
        // LDAP password file is never in an archive.
        let (config, port) = try Self.targetConfig(sandbox, name: "good")
        let restore = try Self.miServer(["restore", "--config", config.path, "--from", archive.path], in: sandbox)
        XCTAssertEqual(restore.status, 0, restore.output)
        XCTAssertTrue(restore.stdout.contains("3 submissions"), restore.stdout)
        XCTAssertFalse(Files.exists(sandbox.root.appendingPathComponent("good-data/signing.key")))
        let again = try RunningServer(sandbox, config: config)
        let secrets = sandbox.root.appendingPathComponent("secrets.tar")
        let withKey = try Self.miServer(["backup", "--config", config.path, "--output", secrets.path, "--include-secrets"], in: sandbox)
        XCTAssertEqual(withKey.status, 0, withKey.output)
        let secretListing = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/tar"), ["-tf", secrets.path]).stdout
        XCTAssertTrue(secretListing.contains("secrets/signing.key"), secretListing)
        let password = try String(contentsOfFile: sandbox.directory.bindPasswordFile, encoding: .utf8)
        let secret = password.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(secret.isEmpty)
        XCTAssertNil(try Data(contentsOf: secrets).range(of: Data(secret.utf8)), "the LDAP password is not in the archive")
        _ = again
        _ = port
    }

    // MARK: - Moving engines

    /// What a server serves of the extinguisher checks: the exports (the zip's entries — its
    /// timestamps are the time of the request —, the JSON Lines and GeoJSON files byte for
    /// byte), the statistics and the listing.
    static func served(port: Int, token: String) throws -> [String: [UInt8]] {
        var served: [String: [UInt8]] = [:]
        let zip = try get("/api/v1/templates/extinguisher-check/export.zip", port: port, token: token)
        XCTAssertEqual(zip.status, 200)
        for entry in try ZipArchiveReader(Array(zip.body)).entries { served["zip:" + entry.name] = entry.data }
        for path in ["/api/v1/templates/extinguisher-check/export.zip?format=jsonl",
                     "/api/v1/templates/extinguisher-check/export.zip?format=geojson",
                     "/api/v1/templates/extinguisher-check/stats", "/api/v1/submissions?limit=50"] {
            let response = try get(path, port: port, token: token)
            XCTAssertEqual(response.status, 200, path)
            served[path] = Array(response.body)
        }
        XCTAssertGreaterThan(served.count, 6, "the zip holds the CSV and media: \(served.keys.sorted())")
        return served
    }

    func testSQLiteToPostgresAndBackServeByteIdenticalExports() throws {
        let sandbox = try Sandbox()
        try Self.prepareTemplates(sandbox)
        let server = try RunningServer(sandbox)
        let (folder, id) = try baseForm(sandbox, name: "engines")
        let token = try Self.token("fiona", port: sandbox.server.port)
        let forms = try Self.copies(of: folder, id: id, name: "engines", count: 4, into: sandbox.root.appendingPathComponent("f"), prefix: "")
        for (folder, _) in forms { XCTAssertEqual(try Self.post(folder, port: sandbox.server.port, token: token).status, 201) }
        let original = try Self.served(port: sandbox.server.port, token: token)

        let first = sandbox.root.appendingPathComponent("sqlite.tar")
        XCTAssertEqual(try Self.miServer(["backup", "--config", sandbox.config.path, "--output", first.path], in: sandbox).status, 0)
        server.kill9()

        let postgres = try PostgresServer.shared()
        let (pgConfig, pgPort) = try Self.targetConfig(sandbox, name: "pg", postgres: (try postgres.makeDatabase(), postgres.passwordFile))
        let toPostgres = try Self.miServer(["restore", "--config", pgConfig.path, "--from", first.path], in: sandbox)
        XCTAssertEqual(toPostgres.status, 0, toPostgres.output)
        let pgServer = try RunningServer(sandbox, config: pgConfig)
        let pgToken = try Self.token("fiona", port: pgPort)
        XCTAssertEqual(try Self.served(port: pgPort, token: pgToken), original, "PostgreSQL serves the same bytes")

        let second = sandbox.root.appendingPathComponent("postgres.tar")
        let backup = try Self.miServer(["backup", "--config", pgConfig.path, "--output", second.path], in: sandbox)
        XCTAssertEqual(backup.status, 0, backup.output)
        pgServer.kill9()
        let (sqliteConfig, sqlitePort) = try Self.targetConfig(sandbox, name: "back")
        let toSQLite = try Self.miServer(["restore", "--config", sqliteConfig.path, "--from", second.path], in: sandbox)
        XCTAssertEqual(toSQLite.status, 0, toSQLite.output)
        let back = try RunningServer(sandbox, config: sqliteConfig)
        let backToken = try Self.token("fiona", port: sqlitePort)
        XCTAssertEqual(try Self.served(port: sqlitePort, token: backToken), original,
                       "after SQLite → PostgreSQL → SQLite the same bytes are served")
        _ = back
    }
}
