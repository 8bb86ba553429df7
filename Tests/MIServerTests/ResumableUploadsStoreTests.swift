import Crypto
import Foundation
import Hummingbird
import Logging
import MIKit
@testable import MIServer
import NIOCore
import TestSupport
import XCTest

/// `ResumableUploads` on its own: the running hash, `take` and expiry.
final class ResumableUploadsStoreTests: XCTestCase {
    static let formID = ServerFixture.formID
    static let name = "Qid6(1).mp4"

    struct Setup {
        let directory: TemporaryDirectory
        let clock = TestClock()
        let logs = LogCapture()
        var folder: URL { directory.path("uploads") }
        var incoming: URL { directory.path("incoming") }

        init() throws {
            directory = try TemporaryDirectory(prefix: "mi-uploads")
            try DurableFile.makeFolder(directory.path("uploads"))
            try DurableFile.makeFolder(directory.path("incoming"))
        }

        /// A fresh instance over the same folder, as after a restart.
        func uploads(expiryHours: Int = 24) -> ResumableUploads {
            let clock = self.clock
            return ResumableUploads(folder: folder, staging: incoming, expiryHours: expiryHours, now: { clock.now }, logger: logs.logger())
        }
    }

    /// Sends `chunks` one PATCH each, through the same streaming code the controller uses.
    static func append(_ chunks: [Data], to id: String, in uploads: ResumableUploads, owner: String = "fiona") async throws {
        var offset: Int64 = 0
        for chunk in chunks {
            let appender = try await uploads.beginAppend(id, owner: owner, offset: offset, checksum: .sha256)
            let pieces = stride(from: 0, to: chunk.count, by: 7000).map { ByteBuffer(bytes: chunk[chunk.startIndex + $0..<chunk.startIndex + min($0 + 7000, chunk.count)]) }
            let body = RequestBody(asyncSequence: SequenceOfBuffers(buffers: pieces))
            let ending = try await ResumableUploadController.receive(body, into: appender)
            guard case .complete = ending else { return XCTFail("the body was cut") }
            offset = try await uploads.finishAppend(appender, keep: true)
        }
    }

    func testTakeMovesTheFinishedFileWithItsRunningHash() async throws {
        let setup = try Setup()
        let uploads = setup.uploads()
        let content = ResumableUploadTests.content
        let (id, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: Int64(content.count), owner: "fiona")
        try await Self.append([content.prefix(100_000), content[100_000..<250_000], content.suffix(from: 250_000)], to: id, in: uploads)
        let destination = setup.incoming.appendingPathComponent(Self.name)
        let taken = try await uploads.take(id, owner: "fiona", formID: Self.formID.description, name: Self.name, to: destination)
        XCTAssertEqual(taken.size, Int64(content.count))
        XCTAssertEqual(taken.sha256, ServerFixture.sha256(content))
        XCTAssertEqual(try Data(contentsOf: destination), content)
        XCTAssertEqual(Files.names(in: setup.folder), [], "the upload's folder is gone")
        do {
            _ = try await uploads.take(id, owner: "fiona", formID: Self.formID.description, name: Self.name,
                                       to: setup.incoming.appendingPathComponent("again"))
            XCTFail("taken twice")
        } catch let error as HTTPError {
            XCTAssertEqual(error.status, .badRequest)
        }
    }

    func testTakeAfterARestartHashesTheFileFromDisk() async throws {
        let setup = try Setup()
        let content = ResumableUploadTests.content
        let first = setup.uploads()
        let (id, _) = try await first.create(formID: Self.formID, name: Self.name, length: Int64(content.count), owner: "fiona")
        try await Self.append([content.prefix(120_000)], to: id, in: first)
        // Another instance (a restarted server) continues and takes it.
        let second = setup.uploads()
        let appender = try await second.beginAppend(id, owner: "fiona", offset: 120_000, checksum: .sha256)
        try appender.append([ByteBuffer(bytes: content.suffix(from: 120_000))])
        try await second.finishAppend(appender, keep: true)
        let destination = setup.incoming.appendingPathComponent(Self.name)
        let taken = try await second.take(id, owner: "fiona", formID: Self.formID.description, name: Self.name, to: destination)
        XCTAssertEqual(taken.sha256, ServerFixture.sha256(content))
        XCTAssertEqual(taken.size, Int64(content.count))
    }

    func testTakeRefusesWhatItCannotHandOver() async throws {
        let setup = try Setup()
        let uploads = setup.uploads()
        let (id, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 100, owner: "fiona")
        try await Self.append([Data(repeating: 1, count: 60)], to: id, in: uploads)
        let destination = setup.incoming.appendingPathComponent(Self.name)
        let form = Self.formID.description
        let cases: [(String, String, String, String, String)] = [
            (UUID().uuidString, "fiona", form, Self.name, "is not on the server"),
            ("not-an-id", "fiona", form, Self.name, "is not on the server"),
            (id, "george", form, Self.name, "is not on the server"),
            (id, "fiona", UUID().uuidString, Self.name, "belongs to form"),
            (id, "fiona", "not-a-uuid", Self.name, "belongs to form"),
            (id, "fiona", form, "Qid0(1).jpg", "holds Qid6(1).mp4, not Qid0(1).jpg"),
            (id, "fiona", form, Self.name, "is not complete (60 of 100 bytes)"),
        ]
        for (uploadID, owner, formID, name, expected) in cases {
            do {
                _ = try await uploads.take(uploadID, owner: owner, formID: formID, name: name, to: destination)
                XCTFail("taken: \(uploadID) \(owner) \(formID) \(name)")
            } catch let error as HTTPError {
                XCTAssertEqual(error.status, .badRequest)
                XCTAssertTrue(error.body?.contains(expected) ?? false, "\(error.body ?? "")")
            }
        }
        XCTAssertFalse(Files.exists(destination))
        XCTAssertEqual(Files.names(in: setup.folder.appendingPathComponent(id)), ["data", "info.json"], "nothing moved")

        // While a PATCH writes, the upload cannot be taken either.
        let appender = try await uploads.beginAppend(id, owner: "fiona", offset: 60, checksum: .sha256)
        do {
            _ = try await uploads.take(id, owner: "fiona", formID: form, name: Self.name, to: destination)
            XCTFail("taken while receiving")
        } catch let error as HTTPError {
            XCTAssertTrue(error.body?.contains("still receiving") ?? false, "\(error.body ?? "")")
        }
        try appender.append([ByteBuffer(bytes: Data(repeating: 2, count: 40))])
        try await uploads.finishAppend(appender, keep: true)
        let taken = try await uploads.take(id, owner: "fiona", formID: form, name: Self.name, to: destination)
        XCTAssertEqual(taken.sha256, ServerFixture.sha256(Data(repeating: 1, count: 60) + Data(repeating: 2, count: 40)))

        // An expired upload is no longer there to take.
        let (old, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 10, owner: "fiona")
        try await Self.append([Data(repeating: 1, count: 10)], to: old, in: uploads)
        setup.clock.advance(by: 24 * 3600)
        do {
            _ = try await uploads.take(old, owner: "fiona", formID: form, name: Self.name, to: setup.incoming.appendingPathComponent("x"))
            XCTFail("an expired upload was taken")
        } catch let error as HTTPError {
            XCTAssertTrue(error.body?.contains("is not on the server") ?? false, "\(error.body ?? "")")
        }
    }

    func testPatchDroppedAfterAFailedChecksumLeavesTheRunningHashAsBefore() async throws {
        let setup = try Setup()
        let uploads = setup.uploads()
        let (id, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 20, owner: "fiona")
        try await Self.append([Data(repeating: 1, count: 10)], to: id, in: uploads)
        let dropped = try await uploads.beginAppend(id, owner: "fiona", offset: 10, checksum: .sha256)
        try dropped.append([ByteBuffer(bytes: Data(repeating: 9, count: 5))])
        let offset = try await uploads.finishAppend(dropped, keep: false)
        XCTAssertEqual(offset, 10)
        let appender = try await uploads.beginAppend(id, owner: "fiona", offset: 10, checksum: .sha256)
        XCTAssertEqual(appender.hash.bytes, 10)
        try appender.append([ByteBuffer(bytes: Data(repeating: 2, count: 10))])
        try await uploads.finishAppend(appender, keep: true)
        let taken = try await uploads.take(id, owner: "fiona", formID: Self.formID.description, name: Self.name,
                                           to: setup.incoming.appendingPathComponent(Self.name))
        XCTAssertEqual(taken.sha256, ServerFixture.sha256(Data(repeating: 1, count: 10) + Data(repeating: 2, count: 10)))
    }

    func testRemoveExpiredRemovesOnlyExpiredAndDamagedUploads() async throws {
        let setup = try Setup()
        let uploads = setup.uploads(expiryHours: 1)
        let (old, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 10, owner: "fiona")
        setup.clock.advance(by: 1800)
        let (young, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 10, owner: "fiona")
        try Files.write("x", to: setup.folder.appendingPathComponent("damaged/data"))
        // A temporary folder of a dead process (pid 1 is alive; a huge pid is not).
        try Files.write("{}", to: setup.folder.appendingPathComponent("\(DurableFile.temporaryPrefix)999999999-x/info.json"))
        let first = await uploads.removeExpired()
        XCTAssertEqual(first, ["damaged"])
        XCTAssertEqual(Files.names(in: setup.folder).sorted(), [old, young].sorted(), "the dead process's temporary folder is gone")
        setup.clock.advance(by: 1800)
        let second = await uploads.removeExpired()
        XCTAssertEqual(second, [old])
        XCTAssertEqual(Files.names(in: setup.folder), [young])
        XCTAssertTrue(setup.logs.messages.contains { $0.contains("removed expired resumable uploads") })
    }

    func testExpiryServiceRemovesExpiredUploadsPeriodically() async throws {
        let setup = try Setup()
        let uploads = setup.uploads(expiryHours: 1)
        let (id, _) = try await uploads.create(formID: Self.formID, name: Self.name, length: 10, owner: "fiona")
        setup.clock.advance(by: 3600)
        let service = UploadExpiryService(uploads: uploads, interval: .milliseconds(20))
        let task = Task { try await service.run() }
        let deadline = Date().addingTimeInterval(5)
        while Files.exists(setup.folder.appendingPathComponent(id)), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        try await task.value
        XCTAssertEqual(Files.names(in: setup.folder), [])
    }
}

/// A request body made of given buffers.
struct SequenceOfBuffers: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffers: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: [ByteBuffer]
        mutating func next() async -> ByteBuffer? { rest.isEmpty ? nil : rest.removeFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: buffers) }
}
