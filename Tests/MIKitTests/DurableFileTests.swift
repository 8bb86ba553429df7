import Foundation
import MIKit
import TestSupport
import XCTest

final class DurableFileTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "mikit-durable")
    }

    override func tearDown() {
        directory = nil
    }

    func testWriteCreatesTheFile() throws {
        let url = directory.path("a.json")
        try DurableFile.write(Data("first".utf8), to: url)
        XCTAssertEqual(try Data(contentsOf: url), Data("first".utf8))
    }

    func testWriteReplacesContentAndLeavesNoTemporaryFiles() throws {
        let url = directory.path("a.json")
        try DurableFile.write(Data(repeating: 0x41, count: 10_000), to: url)
        try DurableFile.write(Data("short".utf8), to: url)
        XCTAssertEqual(try Data(contentsOf: url), Data("short".utf8), "no tail of the longer old content is left")
        XCTAssertEqual(Files.names(in: directory.url), ["a.json"])
        XCTAssertEqual(Files.find(prefix: DurableFile.temporaryPrefix, under: directory.url), [])
    }

    func testWriteReplacesByRenameSoAnOpenReaderKeepsTheOldContent() throws {
        let url = directory.path("a.json")
        try DurableFile.write(Data("old content".utf8), to: url)
        let reader = try FileHandle(forReadingFrom: url)
        defer { try? reader.close() }
        try DurableFile.write(Data("new".utf8), to: url)
        // A new inode took the name; the old file is intact for whoever had it open.
        XCTAssertEqual(try reader.readToEnd(), Data("old content".utf8))
        XCTAssertEqual(try Data(contentsOf: url), Data("new".utf8))
    }

    func testWriteIntoAMissingFolderFailsWithoutLeftovers() throws {
        let url = directory.path("missing", "a.json")
        XCTAssertThrowsError(try DurableFile.write(Data("x".utf8), to: url)) { error in
            guard case StoreError.io(let operation, _, _)? = error as? StoreError else {
                return XCTFail("expected StoreError.io, got \(error)")
            }
            XCTAssertEqual(operation, "create")
        }
        XCTAssertEqual(Files.names(in: directory.url), [])
    }

    func testFailedReplaceRemovesItsTemporaryFileAndKeepsTheTarget() throws {
        // The target is a non-empty folder, so the rename over it fails.
        let target = directory.path("target")
        try Files.write("keep", to: target.appendingPathComponent("inside.txt"))
        XCTAssertThrowsError(try DurableFile.write(Data("x".utf8), to: target))
        XCTAssertEqual(Files.names(in: directory.url), ["target"])
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("inside.txt"), encoding: .utf8), "keep")
    }

    func testMoveNoReplaceMovesAFile() throws {
        let source = directory.path("a")
        let destination = directory.path("b")
        try Files.write("content", to: source)
        try DurableFile.moveNoReplace(source, to: destination)
        XCTAssertFalse(Files.exists(source))
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "content")
    }

    func testMoveNoReplaceMovesAFolderWithItsContents() throws {
        let source = directory.path("Users", "ana", "form")
        let destination = directory.path("CompletedMIs", "form")
        try Files.write("json", to: source.appendingPathComponent("form.json"))
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DurableFile.moveNoReplace(source, to: destination)
        XCTAssertFalse(Files.exists(source))
        XCTAssertEqual(try String(contentsOf: destination.appendingPathComponent("form.json"), encoding: .utf8), "json")
    }

    func testMoveNoReplaceRefusesToOverwriteAFile() throws {
        let source = directory.path("a")
        let destination = directory.path("b")
        try Files.write("source", to: source)
        try Files.write("destination", to: destination)
        XCTAssertThrowsError(try DurableFile.moveNoReplace(source, to: destination)) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: destination.path))
        }
        XCTAssertEqual(try String(contentsOf: source, encoding: .utf8), "source")
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "destination")
    }

    func testMoveNoReplaceRefusesToOverwriteANonEmptyFolder() throws {
        let source = directory.path("new")
        let destination = directory.path("existing")
        try Files.write("new form", to: source.appendingPathComponent("form.json"))
        try Files.write("old form", to: destination.appendingPathComponent("form.json"))
        try Files.write("photo", to: destination.appendingPathComponent("Qid0(1).jpg"))
        XCTAssertThrowsError(try DurableFile.moveNoReplace(source, to: destination)) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: destination.path))
        }
        XCTAssertEqual(try String(contentsOf: source.appendingPathComponent("form.json"), encoding: .utf8), "new form")
        XCTAssertEqual(Files.names(in: destination), ["Qid0(1).jpg", "form.json"])
        XCTAssertEqual(try String(contentsOf: destination.appendingPathComponent("form.json"), encoding: .utf8), "old form")
    }

    func testMoveNoReplaceRefusesEvenAnEmptyFolder() throws {
        let source = directory.path("new")
        let destination = directory.path("existing")
        try Files.write("new form", to: source.appendingPathComponent("form.json"))
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        XCTAssertThrowsError(try DurableFile.moveNoReplace(source, to: destination)) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: destination.path))
        }
        XCTAssertTrue(Files.exists(source.appendingPathComponent("form.json")))
    }

    func testMoveNoReplaceOfAMissingSourceIsAnIOError() {
        XCTAssertThrowsError(try DurableFile.moveNoReplace(directory.path("none"), to: directory.path("b"))) { error in
            guard case StoreError.io(let operation, _, _)? = error as? StoreError else {
                return XCTFail("expected StoreError.io, got \(error)")
            }
            XCTAssertEqual(operation, "move")
        }
    }

    func testStreamCopyCopiesEveryByteUnderATemporaryName() throws {
        let source = directory.path("video.mp4")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: source)
        let folder = directory.path("form")
        try DurableFile.makeFolder(folder)
        let (temporary, count) = try DurableFile.streamCopy(from: source, into: folder, chunkSize: 4096)
        XCTAssertEqual(count, Int64(bytes.count))
        XCTAssertTrue(temporary.lastPathComponent.hasPrefix(DurableFile.temporaryPrefix))
        XCTAssertEqual(try Data(contentsOf: temporary), bytes)
    }

    func testStreamCopyRefusesAFolder() throws {
        let folder = directory.path("form")
        try DurableFile.makeFolder(folder)
        XCTAssertThrowsError(try DurableFile.streamCopy(from: directory.url, into: folder))
        XCTAssertEqual(Files.names(in: folder), [])
    }

    func testMakeFolderCreatesMissingParents() throws {
        let deep = directory.path("a", "b", "c")
        try DurableFile.makeFolder(deep)
        XCTAssertTrue(Files.isDirectory(deep))
        try DurableFile.makeFolder(deep) // already there: fine
        XCTAssertTrue(Files.isDirectory(deep))
    }
}
