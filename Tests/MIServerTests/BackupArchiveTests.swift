import ArgumentParser
import Foundation
import TestSupport
import XCTest
@testable import MIServer

/// The tar `mi-server backup` writes, read back by GNU tar and by the restore's reader; the
/// archive's path rules; the subcommands' command lines.
final class BackupArchiveTests: XCTestCase {
    func testLongNamesGoThroughPaxHeadersThatGNUTarAndTheReaderBothRead() throws {
        let folder = try TemporaryDirectory()
        let archive = folder.url.appendingPathComponent("a.tar")
        let fd = open(archive.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let output = ArchiveOutput(fd: fd, name: archive.path)
        let long = "templates/" + String(repeating: "picture-", count: 20) + "ñ.png"
        let files = [("mi-backup/format.json", Data("{}".utf8)), (long, Data(repeating: 7, count: 1_000))]
        for (path, data) in files {
            try output.write(Tar.header(path: path, size: Int64(data.count), modified: 1_700_000_000))
            try data.withUnsafeBytes { try output.write($0) }
            try output.write(Tar.padding(Int64(data.count)))
        }
        try output.write(Tar.end)
        try output.flush()
        close(fd)

        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        listing.arguments = ["-tf", archive.path]
        let pipe = Pipe()
        listing.standardOutput = pipe
        try listing.run()
        let listed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        listing.waitUntilExit()
        XCTAssertEqual(listing.terminationStatus, 0)
        XCTAssertEqual(listed, files.map { $0.0 + "\n" }.joined())

        let input = ArchiveInput(fd: open(archive.path, O_RDONLY), name: archive.path)
        defer { close(input.fd) }
        var read: [(String, Int64)] = []
        var pending: String?
        while let block = try input.readExactly(Tar.blockSize) {
            guard case .success(let header) = Tar.parse(block) else { return XCTFail("a header does not parse") }
            switch header {
            case .end:
                XCTAssertEqual(read.map(\.0), files.map(\.0))
                XCTAssertEqual(read.map(\.1), files.map { Int64($0.1.count) })
                return
            case .pax(let size):
                let body = try XCTUnwrap(try input.readExactly(Int(size)))
                pending = Tar.paxRecords(body)?["path"]
                _ = try input.readExactly(Tar.padding(size).count)
            case .file(let path, let size):
                read.append((pending ?? path, size))
                pending = nil
                _ = try input.readExactly(Int(size) + Tar.padding(size).count)
            }
        }
        XCTFail("no end of archive")
    }

    func testOnlyTheArchivesOwnPlacesAreRestorable() {
        let id = UUID().uuidString.lowercased()
        for good in ["mi-backup/format.json", "templates/pump.json", "templates/mmse/reloj.png", "submissions/\(id)/form.json",
                     "submissions/\(id)/Qid2(1).jpg", "secrets/signing.key", "versions/\(id)/2/form.json", "versions/\(id)/12/a.jpg",
                     "mi-backup/review.jsonl", "mi-backup/audit.jsonl"] {
            XCTAssertNil(BackupArchive.problem(path: good), good)
        }
        for bad in ["/etc/passwd", "templates/../../etc/passwd", "submissions/\(id)/../x", "submissions/not-an-id/form.json",
                    "submissions/\(id.uppercased())/form.json", "secrets/ldap-password", "mi-backup/other.json", "signing.key",
                    "templates/a\u{1}b", "templates//x", "versions/\(id)/1/form.json", "versions/\(id)/02/form.json",
                    "versions/\(id)/x/form.json", "versions/\(id)/form.json", "versions/\(id)/2/../x"] {
            XCTAssertNotNil(BackupArchive.problem(path: bad), bad)
        }
    }

    /// The audit log in an archive is checked as `mi-server audit verify` checks the database.
    func testAnAuditFileIsReadOnlyWhenItsChainHolds() throws {
        var rows: [ArchivedTables.AuditRow] = []
        var previous: (seq: Int64, sha256: String) = (0, AuditRecord.genesis)
        for (index, actor) in ["fiona", "ana", "fiona"].enumerated() {
            let record = AuditRecord.make(AuditEntry(action: .signIn, actor: actor, address: "127.0.0.1", subject: "/login"),
                                          at: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)), after: previous)
            rows.append(ArchivedTables.AuditRow(seq: record.seq, at: record.atMilliseconds, actor: record.actor, address: record.address,
                                                action: record.action, subject: record.subject, detail: record.detail,
                                                prevSHA256: record.prevSHA256, sha256: record.sha256))
            previous = (record.seq, record.sha256)
        }
        let head = ArchivedTables.AuditHead(seq: previous.seq, sha256: previous.sha256)
        func read(_ rows: [ArchivedTables.AuditRow], head: ArchivedTables.AuditHead?) throws -> ArchivedTables.Contents {
            var contents = ArchivedTables.Contents()
            try ArchivedTables.readAudit(try ArchivedTables.auditFile(ArchivedTables.Contents(audit: rows, head: head)), into: &contents)
            return contents
        }
        XCTAssertEqual(try read(rows, head: head).audit, rows)
        var changed = rows
        changed[1].actor = "mallory"
        XCTAssertThrowsError(try read(changed, head: head)) { error in
            XCTAssertEqual(error as? BackupError, .damaged(path: ArchivedTables.auditPath, problem: "row 2 was changed: its contents do not match its sha256"))
        }
        XCTAssertThrowsError(try read([rows[0], rows[2]], head: head)) { error in
            XCTAssertEqual(error as? BackupError, .damaged(path: ArchivedTables.auditPath, problem: "row 2 is missing (the next row is 3)"))
        }
        XCTAssertThrowsError(try read(Array(rows.prefix(2)), head: head), "the newest row cut off: the head names it")
        var contents = ArchivedTables.Contents()
        XCTAssertThrowsError(try ArchivedTables.readAudit(Data("{\"row\": 5}\n".utf8), into: &contents))
    }

    /// The manifest written directly is the one Codable writes, byte for byte, whatever a path holds.
    func testTheManifestIsWhatTheEncoderWrites() throws {
        let files = [
            BackupArchive.ManifestEntry(path: "submissions/x/Qid0(1).jpg", size: 12, sha256: String(repeating: "a", count: 64)),
            BackupArchive.ManifestEntry(path: "templates/ñandú \"quoted\" \\ back/slash\u{1}\t\u{8}\u{c}\u{7f}.png", size: 0, sha256: "b"),
            BackupArchive.ManifestEntry(path: "templates/🙂.json", size: 1 << 40, sha256: "c"),
        ]
        let direct = BackupArchive.manifestJSON(files)
        XCTAssertEqual(try BackupArchive.decoder.decode(BackupArchive.Manifest.self, from: direct).files, files)
        XCTAssertEqual(String(decoding: direct, as: UTF8.self),
                       String(decoding: try BackupArchive.encoder.encode(BackupArchive.Manifest(files: files)), as: UTF8.self))
        XCTAssertEqual(BackupArchive.manifestJSON([]), Data(#"{"files":[]}"#.utf8))
    }

    func testBackupAndRestoreCommandLines() throws {
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["backup", "--config", "/etc/mi/Config.plist", "--output", "-"]))
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["backup", "--output", "/b.tar", "--include-secrets"]))
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["backup", "--verify", "/b.tar"]))
        XCTAssertNoThrow(try ServerCommand.parseAsRoot(["restore", "--config", "/etc/mi/Config.plist", "--from", "/b.tar"]))
        for arguments in [["backup"], ["backup", "--verify", "/b.tar", "--output", "/c.tar"], ["backup", "--verify", "/b.tar", "--include-secrets"],
                          ["restore"], ["restore", "--from"]] {
            XCTAssertThrowsError(try ServerCommand.parseAsRoot(arguments), "\(arguments)") { error in
                XCTAssertEqual(ServerCommand.exitCode(for: error).rawValue, 64, "\(arguments)")
            }
        }
        XCTAssertTrue(ServerCommand.helpMessage().contains("backup"), ServerCommand.helpMessage())
    }

    func testErrorsHaveClassesCodesAndSayWhatToDo() {
        let errors: [(BackupError, Int32)] = [
            (.damaged(path: "submissions/x/a.jpg", problem: "differs"), 65),
            (.truncated(path: "submissions/x/a.jpg"), 65),
            (.notABackup("it is not a tar archive"), 65),
            (.storedFileDiffers(path: "/d/submissions/x/a.jpg", problem: "is shorter"), 65),
            (.targetNotEmpty("the data directory /d"), 69),
        ]
        for (error, status) in errors {
            XCTAssertEqual(error.failureClass.exitCode, status, "\(error)")
            XCTAssertTrue(error.errorDescription?.contains(" — ") ?? false, "\(error)")
        }
    }
}
