import Foundation
import MIKit
import TestSupport
import XCTest

final class HashingFileReaderTests: XCTestCase {
    private func sha256sum(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    private func write(_ size: Int, to url: URL) throws {
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
        try Files.write(Data(bytes), to: url)
    }

    /// Reads the whole file in buffers of `step` bytes, as libcurl does.
    private func drain(_ reader: HashingFileReader, step: Int) throws -> Data {
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: step, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return data
    }

    func testDigestEqualsSha256sumForSizesAroundTheBuffer() throws {
        let directory = try TemporaryDirectory()
        for size in [0, 1, 4095, 65_536, 1_000_003] {
            let url = directory.path("file-\(size)")
            try write(size, to: url)
            let reader = try HashingFileReader(name: "Qid1(1).jpg", url: url)
            let data = try drain(reader, step: 65_536)
            let digest = try reader.finish()
            XCTAssertEqual(data, try Data(contentsOf: url), "the bytes handed out are the file's")
            XCTAssertEqual(digest, PartDigest(name: "Qid1(1).jpg", size: Int64(size), sha256: try sha256sum(url)))
        }
    }

    func testSkipHashesWithoutHandingOutAndRewindStartsAgain() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("video.mp4")
        try write(3_000_000, to: url)
        let reader = try HashingFileReader(name: "video.mp4", url: url)
        try reader.skip(1_234_567)
        let rest = try drain(reader, step: 1 << 20)
        XCTAssertEqual(rest, try Data(contentsOf: url).suffix(from: 1_234_567))
        XCTAssertEqual(try reader.finish().sha256, try sha256sum(url))

        let again = try HashingFileReader(name: "video.mp4", url: url)
        _ = try drain(again, step: 100_000)
        try again.rewind()
        XCTAssertEqual(again.bytesRead, 0)
        _ = try drain(again, step: 70_000)
        XCTAssertEqual(try again.finish().sha256, try sha256sum(url), "a rewound reader hashes from the start")
    }

    func testFileWrittenDuringTheReadIsCaught() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("photo.jpg")
        try write(200_000, to: url)
        let reader = try HashingFileReader(name: "photo.jpg", url: url)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 50_000, alignment: 1)
        defer { buffer.deallocate() }
        _ = try reader.read(into: buffer)
        // Another program writes into the file in place (same inode) while it is being sent.
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: 150_000)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 10))
        try handle.close()
        _ = try drain(reader, step: 50_000)
        XCTAssertThrowsError(try reader.finish()) { error in
            XCTAssertEqual(error as? ReceiptError, .changedDuringUpload("photo.jpg"))
        }
    }

    func testFileTruncatedOrReplacedDuringTheReadIsCaught() throws {
        let directory = try TemporaryDirectory()
        let truncated = directory.path("a.jpg")
        try write(100_000, to: truncated)
        let reader = try HashingFileReader(name: "a.jpg", url: truncated)
        XCTAssertEqual(truncate(truncated.path, 10_000), 0)
        _ = try drain(reader, step: 4096)
        XCTAssertEqual(reader.bytesRead, 10_000)
        XCTAssertThrowsError(try reader.finish(), "fewer bytes than the file had") { error in
            XCTAssertEqual(error as? ReceiptError, .changedDuringUpload("a.jpg"))
        }

        let replaced = directory.path("b.jpg")
        try write(100_000, to: replaced)
        let second = try HashingFileReader(name: "b.jpg", url: replaced)
        _ = try drain(second, step: 4096)
        let other = directory.path("other")
        try write(100_000, to: other)
        XCTAssertEqual(rename(other.path, replaced.path), 0)
        XCTAssertThrowsError(try second.finish(), "the path names another file now") { error in
            XCTAssertEqual(error as? ReceiptError, .changedDuringUpload("b.jpg"))
        }
    }

    func testAFolderOrMissingFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        XCTAssertThrowsError(try HashingFileReader(name: "x", url: directory.url))
        XCTAssertThrowsError(try HashingFileReader(name: "x", url: directory.path("missing")))
    }
}

final class UploadManifestTests: XCTestCase {
    private let sha = String(repeating: "ab", count: 32)

    func testHeaderRoundTripsHostileNames() throws {
        let manifest = UploadManifest(entries: [
            .init(name: "form", size: 812),
            .init(name: "Qid1(3).mp4", size: 52_428_800, sha256: sha, upload: "3f2c0d9e-1111-4222-8333-944455556666"),
            .init(name: "Ñuñoa, 50%; a=b.jpg", size: 0, sha256: sha),
        ])
        let value = manifest.headerValue
        XCTAssertTrue(value.allSatisfy { $0.isASCII && !$0.isNewline }, value)
        XCTAssertEqual(try UploadManifest(headerValue: value), manifest)
        XCTAssertTrue(value.hasPrefix("form;size=812, Qid1(3).mp4;size=52428800;sha256=\(sha);upload="), value)
    }

    func testMalformedHeadersAreRefused() {
        for value in ["", "form", "form;size=-1", "form;size=1x", "Qid1(1).jpg;size=1", "form;size=1;sha256=abc",
                      "form;size=1;colour=red", "form;size=1, form;size=2", "form;size=1;upload=x", "form;size"] {
            XCTAssertThrowsError(try UploadManifest(headerValue: value), value) { error in
                XCTAssertEqual((error as? UploadManifestError)?.code, "manifest-malformed")
            }
        }
    }

    func testComparisonWithAStoredReceipt() {
        let receipt = Receipt(id: FormID(), user: "ana", formName: "p", uploadedBy: "fiona", receivedAt: Date(),
                              parts: [.init(name: "form", filename: "form.json", size: 10, sha256: sha),
                                      .init(name: "a.jpg", filename: "a.jpg", size: 5, sha256: sha)])
        let other = String(repeating: "cd", count: 32)
        XCTAssertEqual(UploadManifest(entries: [.init(name: "form", size: 10, sha256: sha), .init(name: "a.jpg", size: 5, sha256: sha)])
            .compare(with: receipt), .same)
        XCTAssertEqual(UploadManifest(entries: [.init(name: "form", size: 10), .init(name: "a.jpg", size: 5, sha256: sha)])
            .compare(with: receipt), .sameShape)
        XCTAssertEqual(UploadManifest(entries: [.init(name: "form", size: 10), .init(name: "a.jpg", size: 5, sha256: other)])
            .compare(with: receipt), .different)
        XCTAssertEqual(UploadManifest(entries: [.init(name: "form", size: 10), .init(name: "a.jpg", size: 6)])
            .compare(with: receipt), .different)
        XCTAssertEqual(UploadManifest(entries: [.init(name: "form", size: 10)]).compare(with: receipt), .different)
    }
}

final class UploadChecksumTests: XCTestCase {
    private func checksum(_ algorithm: UploadChecksum.Algorithm, _ text: String) -> UploadChecksum {
        Array(text.utf8).withUnsafeBytes { UploadChecksum(algorithm, of: $0) }
    }

    func testKnownDigests() {
        // The CRC-32C check value (RFC 3720), and the SHAs of "abc".
        XCTAssertEqual(checksum(.crc32c, "123456789").digest, Data([0xE3, 0x06, 0x92, 0x83]))
        XCTAssertEqual(checksum(.crc32c, "").digest, Data([0, 0, 0, 0]))
        XCTAssertEqual(Hex.lowercase(checksum(.sha1, "abc").digest), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Hex.lowercase(checksum(.sha256, "abc").digest),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testPiecesGiveTheSameChecksumAsTheWhole() {
        let bytes = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        for algorithm in UploadChecksum.Algorithm.allCases {
            var hasher = UploadChecksum.Hasher(algorithm)
            bytes.withUnsafeBytes { all in
                // Odd lengths and misaligned starts: the CRC instruction's alignment loop.
                var start = 0
                for length in [1, 7, 13, 4096, 65_537] {
                    let end = min(start + length, all.count)
                    hasher.update(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: all[start...]))
            }
            XCTAssertEqual(hasher.finalize(), bytes.withUnsafeBytes { UploadChecksum(algorithm, of: $0) }, "\(algorithm)")
        }
    }

    func testHeaderRoundTripAndRefusals() throws {
        let crc = checksum(.crc32c, "123456789")
        XCTAssertEqual(crc.headerValue, "crc32c 4waSgw==")
        XCTAssertEqual(try UploadChecksum(headerValue: "crc32c 4waSgw=="), crc)
        XCTAssertEqual(try UploadChecksum(headerValue: "SHA256 " + checksum(.sha256, "x").digest.base64EncodedString()),
                       checksum(.sha256, "x"))
        XCTAssertThrowsError(try UploadChecksum(headerValue: "crc32c")) { XCTAssertEqual($0 as? UploadChecksumError, .malformed) }
        XCTAssertThrowsError(try UploadChecksum(headerValue: "md5 AAAA")) { XCTAssertEqual($0 as? UploadChecksumError, .unsupported("md5")) }
        XCTAssertThrowsError(try UploadChecksum(headerValue: "sha256 4waSgw==")) {
            XCTAssertEqual($0 as? UploadChecksumError, .wrongDigest(.sha256))
        }
        XCTAssertEqual(UploadChecksum.supportedAlgorithms, "crc32c,sha1,sha256")
    }
}
