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
                     "submissions/\(id)/Qid2(1).jpg", "secrets/signing.key"] {
            XCTAssertNil(BackupArchive.problem(path: good), good)
        }
        for bad in ["/etc/passwd", "templates/../../etc/passwd", "submissions/\(id)/../x", "submissions/not-an-id/form.json",
                    "submissions/\(id.uppercased())/form.json", "secrets/ldap-password", "mi-backup/other.json", "signing.key",
                    "templates/a\u{1}b", "templates//x"] {
            XCTAssertNotNil(BackupArchive.problem(path: bad), bad)
        }
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
