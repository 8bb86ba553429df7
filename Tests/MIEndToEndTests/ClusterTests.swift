import Foundation
import MIKit
import TestSupport
import XCTest

/// Two real mi-servers on one PostgreSQL database, one data folder, one templates folder and one
/// `Server.SigningKeyFile`, behind Debian's nginx (scripts/nginx-test.sh); `mi` and curl talk to
/// nginx, as a company running several servers would.
final class Cluster {
    let postgres: PostgresServer
    let database: DatabaseLocation.Postgres
    let ports: [Int]
    let nginx: NginxServer
    let sandbox: Sandbox
    /// Each server's Config.plist: the sandbox's, and a copy listening on the second port.
    let configs: [URL]
    var servers: [RunningServer]

    init(extraKeys: String = "") throws {
        postgres = try PostgresServer.shared()
        database = try postgres.makeDatabase()
        ports = [Sandbox.freePort(), Sandbox.freePort()]
        nginx = try NginxServer.start(upstreams: ports)
        let keys = """
            <key>Database</key><string>postgres://\(database.user)@127.0.0.1:\(database.port)/\(database.database)</string>
            <key>DatabasePasswordFile</key><string>\(postgres.passwordFile)</string>
            <key>SigningKeyFile</key><string>cluster.key</string>
            <key>MaxConnectionsPerAddress</key><integer>256</integer>
            \(extraKeys)
            """
        sandbox = try Sandbox(server: .init(port: nginx.port, listenPort: ports[0], extraKeys: keys))
        try ServerTests.prepare(sandbox)
        let second = sandbox.root.appendingPathComponent("Config-2.plist")
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: "<string>127.0.0.1:\(ports[0])</string>", with: "<string>127.0.0.1:\(ports[1])</string>")
        try text.write(to: second, atomically: true, encoding: .utf8)
        let configs = [sandbox.config, second]
        let sandbox = self.sandbox
        self.configs = configs
        servers = try configs.map { try RunningServer(sandbox, config: $0) }
    }

    var data: URL { sandbox.root.appendingPathComponent("server-data") }
    var submissions: [String] { Files.names(in: data.appendingPathComponent("submissions")) }

    /// Submissions in the database.
    func storedCount() throws -> Int {
        let text = try postgres.psql("SELECT count(*) FROM submission", database: database.database)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Uploads being received, or left by a dead server, in the shared data folder.
    var uploadsBeingReceived: [String] { Files.uploadsBeingReceived(in: data.appendingPathComponent("incoming")) }

    /// The bearer token `mi login` got for `user` (through nginx).
    func token(_ user: String) throws -> String {
        try sandbox.ensureLoggedIn(user)
        let session = try Data(contentsOf: sandbox.stateFolder(for: user).appendingPathComponent("mi/session.json"))
        let object = try JSONSerialization.jsonObject(with: session) as? [String: Any]
        return try XCTUnwrap(object?["serverToken"] as? String)
    }

    /// The server (index) whose process has a file open whose path contains `fragment`, if any.
    func server(holdingOpen fragment: String) -> Int? {
        for (index, server) in servers.enumerated() where server.process.isRunning {
            let fds = "/proc/\(server.process.processIdentifier)/fd"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\(name)"),
                   target.contains(fragment) {
                    return index
                }
            }
        }
        return nil
    }

    /// The upstream (`127.0.0.1:PORT`) of each request in nginx's access log whose line has `text`.
    func upstreams(of text: String) throws -> [String] {
        try String(contentsOf: nginx.accessLog, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(text) }
            .compactMap { line in line.split(separator: " ").first { $0.hasPrefix("upstream=") }?.dropFirst("upstream=".count) }
            .map(String.init)
    }
}

/// One POST of a form folder (form.json and its media) as `curl -F` sends it, run as a process.
private struct CurlPost {
    let process = Process()
    let output: URL

    init(folder: URL, port: Int, token: String, scratch: URL) throws {
        output = scratch.appendingPathComponent("response-\(UUID().uuidString)")
        var arguments = ["-sS", "-o", output.path, "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)",
                         "-F", "form=@\(folder.appendingPathComponent("form.json").path);type=application/json"]
        for media in Files.names(in: folder) where media != "form.json" {
            arguments += ["-F", "\(media)=@\(folder.appendingPathComponent(media).path);filename=\(media)"]
        }
        arguments.append("http://127.0.0.1:\(port)/api/v1/submissions")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The HTTP status and the response's JSON object.
    func finish() throws -> (status: Int, body: NSDictionary) {
        let status = String(decoding: (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
                            as: UTF8.self)
        process.waitUntilExit()
        let body = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? NSDictionary
        return (Int(status) ?? -1, body ?? [:])
    }
}

final class ClusterTests: XCTestCase {
    /// A completed extinguisher check of ana's with a photo (and a video of `mediaBytes`).
    private func completedForm(_ cluster: Cluster, name: String, mediaBytes: Int = 0) throws -> (folder: URL, id: String) {
        let name = try ServerTests.completedForm(cluster.sandbox, name: name, mediaBytes: mediaBytes)
        let id = try XCTUnwrap(try cluster.sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        return (cluster.sandbox.formFolder(name, in: "CompletedMIs"), id)
    }

    func testTwentyIdenticalUploadsOverBothServersStoreOneSubmissionWithOneReceipt() throws {
        let cluster = try Cluster()
        let (folder, id) = try completedForm(cluster, name: "twenty-times")
        let token = try cluster.token("fiona")
        let posts = try (0..<20).map { _ in try CurlPost(folder: folder, port: cluster.nginx.port, token: token, scratch: cluster.sandbox.root) }
        let results = try posts.map { try $0.finish() }

        XCTAssertEqual(results.filter { $0.status == 201 }.count, 1, "\(results.map(\.status))")
        XCTAssertEqual(results.filter { $0.status == 200 }.count, 19, "\(results.map(\.status))")
        XCTAssertEqual(Set(results.map(\.body)).count, 1, "every upload got the same receipt")
        XCTAssertEqual(results.first?.body["id"] as? String, id)
        XCTAssertEqual(Set(try cluster.upstreams(of: "POST /api/v1/submissions")), Set(cluster.ports.map { "127.0.0.1:\($0)" }),
                       "both servers took some of the uploads")
        XCTAssertEqual(try cluster.storedCount(), 1)
        XCTAssertEqual(cluster.submissions, [id])
        XCTAssertEqual(Files.names(in: cluster.data.appendingPathComponent("submissions/\(id)")), Files.names(in: folder))
        XCTAssertEqual(cluster.uploadsBeingReceived, [], "the losers' received copies are gone")
    }

    func testTwentyDifferentUploadsOverBothServersAreAllStored() throws {
        let cluster = try Cluster()
        let (folder, id) = try completedForm(cluster, name: "template-form")
        let token = try cluster.token("fiona")
        let original = try String(contentsOf: folder.appendingPathComponent("form.json"), encoding: .utf8)
        let photo = try XCTUnwrap(Files.names(in: folder).first { $0 != "form.json" })
        var ids: [String] = []
        var folders: [URL] = []
        for index in 0..<20 {
            let copy = cluster.sandbox.root.appendingPathComponent("copies/\(index)")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let newID = UUID().uuidString
            try original.replacingOccurrences(of: id.uppercased(), with: newID).replacingOccurrences(of: id, with: newID.lowercased())
                .write(to: copy.appendingPathComponent("form.json"), atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(at: folder.appendingPathComponent(photo), to: copy.appendingPathComponent(photo))
            ids.append(newID.lowercased())
            folders.append(copy)
        }
        let posts = try folders.map { try CurlPost(folder: $0, port: cluster.nginx.port, token: token, scratch: cluster.sandbox.root) }
        let results = try posts.map { try $0.finish() }

        XCTAssertEqual(results.map(\.status), Array(repeating: 201, count: 20), "\(results.map(\.body))")
        XCTAssertEqual(results.compactMap { $0.body["id"] as? String }, ids)
        XCTAssertEqual(Set(try cluster.upstreams(of: "POST /api/v1/submissions")).count, 2, "both servers stored some")
        XCTAssertEqual(try cluster.storedCount(), 20)
        XCTAssertEqual(cluster.submissions, ids.sorted())
        for id in ids {
            XCTAssertEqual(Files.names(in: cluster.data.appendingPathComponent("submissions/\(id)")), ["form.json", photo].sorted())
        }
    }

    /// A server killed while it receives a form's one multipart upload: nginx sends the retried
    /// `mi upload` to the other, the form is stored once, and the dead server's half-received
    /// copy is removed when it starts again (the live server's folder is left alone).
    func testAServerKilledMidUploadThenMiUploadRetriedThroughNginxStoresTheFormOnce() throws {
        let cluster = try Cluster(extraKeys: "<key>ResumableThresholdBytes</key><integer>1073741824</integer>")
        let (folder, id) = try completedForm(cluster, name: "heavy", mediaBytes: 200 << 20)
        try cluster.sandbox.ensureLoggedIn("fiona")
        let upload = try cluster.sandbox.start(["upload", "ana/heavy"], as: "fiona")
        let deadline = Date().addingTimeInterval(30)
        var receiving: Int?
        while receiving == nil && Date() < deadline && upload.isRunning {
            if !cluster.uploadsBeingReceived.isEmpty {
                receiving = cluster.server(holdingOpen: ".mp4")
            }
            if receiving == nil { usleep(20_000) }
        }
        let killed = try XCTUnwrap(receiving, "no server was seen receiving the video")
        cluster.servers[killed].kill9()
        upload.waitUntilExit()
        if upload.terminationStatus != 0 {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path), "the form is kept for the retry")
            let retry = try cluster.sandbox.run(["upload", "ana/heavy"], as: "fiona")
            XCTAssertEqual(retry.status, 0, retry.output)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path), "uploaded and verified")
        XCTAssertEqual(try cluster.storedCount(), 1)
        XCTAssertEqual(cluster.submissions, [id])
        let stored = cluster.data.appendingPathComponent("submissions/\(id)")
        let video = try XCTUnwrap(Files.names(in: stored).first { $0.hasSuffix(".mp4") })
        let size = try FileManager.default.attributesOfItem(atPath: stored.appendingPathComponent(video).path)[.size] as? NSNumber
        XCTAssertEqual(size?.intValue, 200 << 20)
        XCTAssertFalse(cluster.uploadsBeingReceived.isEmpty, "the killed server's half copy waits for a sweep")

        cluster.servers[killed] = try RunningServer(cluster.sandbox, config: cluster.configs[killed])
        XCTAssertEqual(cluster.uploadsBeingReceived, [], "the restarted server removed the dead one's copy")
        XCTAssertEqual(try cluster.storedCount(), 1)
    }

    /// A resumable (tus) upload whose server is killed mid-PATCH is finished by the other one
    /// from where the first stopped: the same upload id, taken into the submission there.
    func testAResumableUploadStartedOnOneServerIsFinishedOnTheOther() throws {
        let cluster = try Cluster(extraKeys: "<key>ResumableThresholdBytes</key><integer>1048576</integer>")
        let (folder, id) = try completedForm(cluster, name: "resumed", mediaBytes: 200 << 20)
        // The video's digest, read in chunks: this test process also measures its own peak memory.
        let sent = try FileDigest.sha256(of: folder.appendingPathComponent(try XCTUnwrap(Files.names(in: folder).first { $0.hasSuffix(".mp4") })))
        try cluster.sandbox.ensureLoggedIn("fiona")
        let uploads = cluster.data.appendingPathComponent("uploads")
        let upload = try cluster.sandbox.start(["upload", "ana/resumed"], as: "fiona")
        let deadline = Date().addingTimeInterval(30)
        var writer: (server: Int, upload: String)?
        while writer == nil && Date() < deadline && upload.isRunning {
            for name in Files.names(in: uploads) where !name.hasPrefix(".") {
                let size = (try? FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent("\(name)/data").path)[.size] as? NSNumber)?.intValue ?? 0
                if size > 8 << 20, let server = cluster.server(holdingOpen: "uploads/\(name)/data") {
                    writer = (server, name)
                }
            }
            if writer == nil { usleep(20_000) }
        }
        let (killed, uploadID) = try XCTUnwrap(writer, "no server was seen writing the video")
        cluster.servers[killed].kill9()
        let survivor = 1 - killed
        upload.waitUntilExit()
        if upload.terminationStatus != 0 {
            let retry = try cluster.sandbox.run(["upload", "ana/resumed"], as: "fiona")
            XCTAssertEqual(retry.status, 0, retry.output)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path), "uploaded and verified")
        XCTAssertEqual(try cluster.storedCount(), 1)
        XCTAssertEqual(cluster.submissions, [id])
        let log = try String(contentsOf: cluster.servers[survivor].log, encoding: .utf8)
        XCTAssertTrue(log.split(separator: "\n").contains { $0.contains("resumable upload taken") && $0.contains(uploadID) },
                      "the other server took the upload the killed one was writing")
        XCTAssertEqual(try cluster.upstreams(of: "PATCH /api/v1/uploads/\(uploadID)").filter { $0.hasSuffix(":\(cluster.ports[survivor])") }.isEmpty,
                       false, "the rest was sent to the other server")
        let stored = cluster.data.appendingPathComponent("submissions/\(id)")
        let video = try XCTUnwrap(Files.names(in: stored).first { $0.hasSuffix(".mp4") })
        let received = try FileDigest.sha256(of: stored.appendingPathComponent(video))
        XCTAssertEqual(received.size, 200 << 20)
        XCTAssertEqual(received.hex, sent.hex, "the stored video is the one sent, byte for byte")
    }

    /// Signing out of the office on one server ends the session on both: the cookie copied
    /// before is refused by the other server (they share the data folder's revoked-sessions).
    func testASessionSignedOutOnOneServerIsRefusedByTheOther() throws {
        let cluster = try Cluster()
        let jar = cluster.sandbox.root.appendingPathComponent("cookies.txt")
        let body = cluster.sandbox.root.appendingPathComponent("body.html")
        /// The page's body, then a last line "STATUS REDIRECT".
        func curl(_ port: Int, _ path: String, _ extra: [String] = []) throws -> (stdout: String, output: String) {
            let run = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                          ["-sS", "-b", jar.path, "-c", jar.path, "-H", "Accept: text/html",
                                           "-o", body.path, "-w", "%{http_code} %{redirect_url}"] + extra + ["http://127.0.0.1:\(port)\(path)"])
            let page = (try? String(contentsOf: body, encoding: .utf8)) ?? ""
            return (page + "\n" + run.stdout, run.output)
        }
        func csrf(_ html: String) throws -> String {
            let marker = "name=\"csrf-token\" content=\""
            let start = try XCTUnwrap(html.range(of: marker), html).upperBound
            return String(html[start...].prefix { $0 != "\"" })
        }
        let (one, two) = (cluster.ports[0], cluster.ports[1])
        let form = try curl(one, "/login")
        let signedIn = try curl(one, "/login", ["--data-urlencode", "user=fiona",
                                                "--data-urlencode", "password=\(TestDirectory.password(for: "fiona"))",
                                                "--data-urlencode", "_csrf=\(try csrf(form.stdout))", "--data-urlencode", "next=/"])
        XCTAssertTrue(signedIn.stdout.hasSuffix("303 http://127.0.0.1:\(one)/"), signedIn.output)
        let cookie = try XCTUnwrap(try String(contentsOf: jar, encoding: .utf8).split(separator: "\n")
            .first { $0.contains("\tmi_office\t") }?.split(separator: "\t").last.map(String.init), "no mi_office cookie")
        let onTwo = try curl(two, "/submissions", ["-H", "Cookie: mi_office=\(cookie)"])
        XCTAssertTrue(onTwo.stdout.hasSuffix("200 "), "the session works on the other server: \(onTwo.stdout.suffix(200))")
        let page = try curl(one, "/")
        let out = try curl(one, "/logout", ["--data-urlencode", "_csrf=\(try csrf(page.stdout))"])
        XCTAssertTrue(out.stdout.hasSuffix("303 http://127.0.0.1:\(one)/login"), out.output)
        let after = try curl(two, "/submissions", ["-H", "Cookie: mi_office=\(cookie)"])
        XCTAssertTrue(after.stdout.contains("303 http://127.0.0.1:\(two)/login"),
                      "the copied cookie after signing out, on the other server: \(after.stdout.suffix(200))")
        let bearer = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/curl"),
                                         ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(cookie)",
                                          "http://127.0.0.1:\(two)/api/v1/templates"])
        XCTAssertEqual(bearer.stdout, "401", "the signed-out token as a bearer token")
        withExtendedLifetime(cluster) {}
    }
}
