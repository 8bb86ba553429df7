import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MITransport

final class FileDigestTests: XCTestCase {
    func testEmptyFile() throws {
        let directory = try TemporaryDirectory(prefix: "digest")
        let url = directory.path("empty")
        try Files.write(Data(), to: url)
        let digest = try FileDigest.sha256(of: url)
        XCTAssertEqual(digest.size, 0)
        XCTAssertEqual(digest.hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testKnownText() throws {
        let directory = try TemporaryDirectory(prefix: "digest")
        let url = directory.path("abc")
        try Files.write("abc", to: url)
        let digest = try FileDigest.sha256(of: url)
        XCTAssertEqual(digest.size, 3)
        XCTAssertEqual(digest.hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// Several chunks and a partial last one, checked against coreutils' sha256sum.
    func testFileOfManyChunksMatchesSha256sum() throws {
        let directory = try TemporaryDirectory(prefix: "digest")
        let url = directory.path("big.bin")
        let size = FileDigest.chunkSize * 2 + 12_345
        try UploadFixture.writePattern(bytes: size, seed: 3, to: url)
        let digest = try FileDigest.sha256(of: url)
        XCTAssertEqual(digest.size, Int64(size))
        XCTAssertEqual(digest.hex, try sha256sum(url))
    }

    /// Hashing a 40 MiB file must not read it into memory.
    func testMemoryStaysFlat() throws {
        let directory = try TemporaryDirectory(prefix: "digest")
        let url = directory.path("big.bin")
        try UploadFixture.writePattern(bytes: 40 << 20, seed: 1, to: url)
        PeakMemory.reset()
        let before = try XCTUnwrap(PeakMemory.highWaterMark())
        _ = try FileDigest.sha256(of: url)
        let after = try XCTUnwrap(PeakMemory.highWaterMark())
        XCTAssertLessThan(after - before, 16 << 20, "peak RSS grew by \(after - before) bytes")
    }

    func testMissingFile() {
        XCTAssertThrowsError(try FileDigest.sha256(of: URL(fileURLWithPath: "/nonexistent/form.json"))) { error in
            guard case .io(_, let path, _)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/form.json")
        }
    }

    private func sha256sum(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }
}
