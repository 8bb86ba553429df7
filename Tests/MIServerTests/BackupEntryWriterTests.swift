import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MIServer

/// The backup's file copier, which hashes each stored file on a second thread while it copies
/// the next chunk: the manifest holds every file's true SHA-256, and a stored file that differs
/// from its receipt fails the backup naming that file, however many chunks later it is found.
final class BackupEntryWriterTests: XCTestCase {
    private func files(in folder: TemporaryDirectory, sizes: [Int]) throws -> [(URL, Int64, String)] {
        try sizes.enumerated().map { index, size in
            let url = folder.url.appendingPathComponent("part-\(index).bin")
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            try data.write(to: url)
            return (url, Int64(size), FileDigest.sha256(of: data))
        }
    }

    private func writer(_ folder: TemporaryDirectory) -> (ServerBackup.EntryWriter, Int32, URL) {
        let archive = folder.url.appendingPathComponent("out.tar")
        let fd = open(archive.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        return (ServerBackup.EntryWriter(output: ArchiveOutput(fd: fd, name: archive.path), modified: 1_700_000_000), fd, archive)
    }

    /// Written to a pipe (`--output - | ssh …`), the archive asks for a 1 MiB pipe so the backup
    /// and its reader do not take turns every 64 KiB; what it writes is unchanged.
    func testAPipeEitherWayIsEnlargedToAWholeChunk() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        let getPipeSize: Int32 = 1032   // F_GETPIPE_SZ
        XCTAssertEqual(fcntl(ends[0], getPipeSize), 64 << 10, "a new pipe holds 64 KiB")
        let output = ArchiveOutput(fd: ends[1], name: "pipe")
        XCTAssertEqual(fcntl(ends[0], getPipeSize), 1 << 20)
        let bytes = [UInt8](repeating: 7, count: 300_000)
        try output.write(bytes)
        try output.flush()   // fits in the pipe now: no reader is needed for it to return
        var back = [UInt8](repeating: 0, count: bytes.count)
        var read = 0
        while read < bytes.count {
            let count = back.withUnsafeMutableBytes { Foundation.read(ends[0], $0.baseAddress! + read, bytes.count - read) }
            XCTAssertGreaterThan(count, 0)
            guard count > 0 else { break }
            read += count
        }
        XCTAssertEqual(back, bytes)

        // Read from a pipe (`ssh … | mi-server restore --from -`), likewise.
        var other: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&other), 0)
        defer { close(other[0]); close(other[1]) }
        _ = ArchiveInput(fd: other[0], name: "stdin")
        XCTAssertEqual(fcntl(other[1], getPipeSize), 1 << 20)
    }

    func testManifestHoldsEveryFilesDigestAcrossChunksAndEmptyFiles() throws {
        let folder = try TemporaryDirectory()
        // Empty, one byte, exactly one chunk, several chunks and a ragged end.
        let chunk = PipelinedDigest.chunkSize
        let stored = try files(in: folder, sizes: [0, 1, chunk, 3 * chunk + 17, 5 * chunk - 1, 42])
        var (writer, fd, archive) = writer(folder)
        defer { close(fd) }
        for (index, (url, size, digest)) in stored.enumerated() {
            try writer.addFile("mi-backup/submissions/x/\(index).bin", from: url.path, size: size, sha256: digest)
        }
        try writer.finish()
        XCTAssertEqual(writer.manifest.map(\.sha256), stored.map(\.2))
        XCTAssertEqual(writer.manifest.map(\.size), stored.map(\.1))

        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        listing.arguments = ["-tvf", archive.path]
        listing.standardOutput = FileHandle.nullDevice
        try listing.run()
        listing.waitUntilExit()
        XCTAssertEqual(listing.terminationStatus, 0, "GNU tar reads the archive")
    }

    func testAFileThatDiffersFromItsReceiptFailsTheBackupNamingIt() throws {
        let folder = try TemporaryDirectory()
        let chunk = PipelinedDigest.chunkSize
        var stored = try files(in: folder, sizes: [2 * chunk + 5, 3 * chunk, 10, chunk + 1])
        stored[1].2 = String(repeating: "0", count: 64)   // the second file's receipt lies
        stored[3].2 = String(repeating: "1", count: 64)   // so does the fourth's; the first is named
        var (writer, fd, _) = writer(folder)
        defer { close(fd) }
        for (index, (url, size, digest)) in stored.enumerated() {
            try writer.addFile("mi-backup/submissions/x/\(index).bin", from: url.path, size: size, sha256: digest)
        }
        XCTAssertThrowsError(try writer.finish()) { error in
            guard case let BackupError.storedFileDiffers(path, problem) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, stored[1].0.path)
            XCTAssertTrue(problem.contains("its receipt 0000"), problem)
        }
    }

    /// A small file is hashed as it is written, not on the hashing thread: a lie is named at once.
    func testASmallFileThatDiffersFromItsReceiptIsNamedAtOnce() throws {
        let folder = try TemporaryDirectory()
        var stored = try files(in: folder, sizes: [PipelinedDigest.inlineBytes, 700])
        stored[1].2 = String(repeating: "2", count: 64)
        var (writer, fd, _) = writer(folder)
        defer { close(fd) }
        try writer.addFile("submissions/x/0.bin", from: stored[0].0.path, size: stored[0].1, sha256: stored[0].2)
        let actual = FileDigest.sha256(of: try Data(contentsOf: stored[1].0))
        XCTAssertThrowsError(try writer.addFile("submissions/x/1.bin", from: stored[1].0.path, size: stored[1].1, sha256: stored[1].2)) { error in
            XCTAssertEqual(error as? BackupError, .storedFileDiffers(path: stored[1].0.path, problem: "has SHA-256 \(actual), its receipt \(stored[1].2)"))
        }
        XCTAssertNoThrow(try writer.checkDigests())
    }

    func testAShortFileFailsAtOnceAndTheHashingThreadStops() throws {
        let folder = try TemporaryDirectory()
        let stored = try files(in: folder, sizes: [3 * PipelinedDigest.chunkSize])
        var (writer, fd, _) = writer(folder)
        defer { close(fd) }
        XCTAssertThrowsError(try writer.addFile("mi-backup/submissions/x/0.bin", from: stored[0].0.path,
                                                size: stored[0].1 + 1, sha256: stored[0].2)) { error in
            guard case let BackupError.storedFileDiffers(path, problem) = error else { return XCTFail("unexpected \(error)") }
            XCTAssertEqual(path, stored[0].0.path)
            XCTAssertTrue(problem.contains("shorter"), problem)
        }
        // After a failure the digests are still collected (the thread ends) and nothing hangs.
        XCTAssertNoThrow(try writer.checkDigests())
    }
}
