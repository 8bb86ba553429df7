import Foundation
@testable import MIKit
import TestSupport
import XCTest

final class ZipWriterTests: XCTestCase {
    func testCRC32OfTheCheckValueAndOfEmptyInput() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
        XCTAssertEqual(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)), 0x414F_A339)
    }

    func testCRC32InPiecesEqualsItInOneAndTheBitwiseDefinition() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<10_007).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var reference: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            reference ^= UInt32(byte)
            for _ in 0..<8 { reference = reference & 1 == 1 ? (reference >> 1) ^ 0xEDB8_8320 : reference >> 1 }
        }
        reference = ~reference
        XCTAssertEqual(CRC32.checksum(bytes), reference)
        var pieces = CRC32()
        var start = 0
        for length in [1, 7, 8, 9, 63, 1000, 4096] + Array(repeating: 13, count: 400) where start < bytes.count {
            let end = min(bytes.count, start + length)
            Array(bytes[start..<end]).withUnsafeBytes { pieces.update($0) }
            start = end
        }
        Array(bytes[start...]).withUnsafeBytes { pieces.update($0) }
        XCTAssertEqual(pieces.value, reference)
    }

    private func archive(_ entries: [(String, [UInt8], UInt64?)], limits: ZipWriter.Limits = .standard) throws -> [UInt8] {
        var zip = try ZipWriter(modified: TestClock.start, limits: limits)
        var bytes: [UInt8] = []
        for (name, data, expected) in entries {
            zip.begin(name: name, expectedSize: expected)
            // In two writes, as a file is copied in pieces.
            zip.write(Array(data.prefix(data.count / 2)))
            zip.write(Array(data.dropFirst(data.count / 2)))
            try zip.end()
            bytes += zip.takeOutput()
        }
        while try !zip.finish(maximumBytes: 100) { bytes += zip.takeOutput() }
        bytes += zip.takeOutput()
        XCTAssertEqual(zip.offset, UInt64(bytes.count))
        return bytes
    }

    func testEntriesReadBackWithDescriptorsUTF8NamesAndCRCs() throws {
        let csv = Array("SubmissionDate,comuna\r\n2026-03-02T09:00:00Z,Ñuñoa\r\n".utf8)
        let photo = (0..<5000).map { UInt8($0 % 251) }
        let bytes = try archive([("pump.csv", csv, nil), ("media/abc/Qid0(1).jpg", photo, 5000), ("media/abc/Ñuñoa.txt", [], 0)])
        let reader = try ZipArchiveReader(bytes)
        XCTAssertEqual(reader.entries.map(\.name), ["pump.csv", "media/abc/Qid0(1).jpg", "media/abc/Ñuñoa.txt"])
        XCTAssertFalse(reader.zip64End)
        XCTAssertEqual(reader.entryCountField, 3)
        for entry in reader.entries {
            XCTAssertEqual(entry.flags, 0x0808, "data descriptor and UTF-8 names")
            XCTAssertEqual(entry.crc, CRC32.checksum(entry.data), entry.name)
            XCTAssertFalse(entry.zip64Extra)
            XCTAssertFalse(entry.wideDescriptor)
        }
        XCTAssertEqual(reader.entry("pump.csv")?.data, csv)
        XCTAssertEqual(reader.entry("media/abc/Qid0(1).jpg")?.data, photo)
        XCTAssertEqual(reader.entry("media/abc/Ñuñoa.txt")?.size, 0)
        try assertPythonReads(bytes, names: reader.entries.map(\.name))
    }

    func testZip64FieldsAndEndRecordsPastTheLimits() throws {
        // Limits lowered to 2 entries and 64 bytes reach every Zip64 path with small data.
        let limits = ZipWriter.Limits(entries: 2, bytes: 64)
        let big = (0..<300).map { UInt8($0 % 256) }
        let bytes = try archive([("small.txt", Array("hi".utf8), nil), ("big-unknown.bin", big, nil),
                                 ("big-known.bin", big, 300), ("late.txt", Array("late".utf8), 4)], limits: limits)
        let reader = try ZipArchiveReader(bytes)
        XCTAssertTrue(reader.zip64End)
        XCTAssertEqual(reader.entryCountField, 0xFFFF, "the classic count says: see Zip64")
        XCTAssertEqual(reader.entries.count, 4)
        XCTAssertEqual(reader.entry("small.txt")?.zip64Extra, false)
        XCTAssertEqual(reader.entry("big-unknown.bin")?.zip64Extra, true, "size past the limit")
        XCTAssertEqual(reader.entry("big-unknown.bin")?.wideDescriptor, true)
        XCTAssertEqual(reader.entry("big-known.bin")?.data, big)
        XCTAssertEqual(reader.entry("big-known.bin")?.wideDescriptor, true)
        XCTAssertEqual(reader.entry("late.txt")?.zip64Extra, true, "its offset is past the limit")
        XCTAssertGreaterThan(reader.entry("late.txt")?.localOffset ?? 0, 64)
        for entry in reader.entries { XCTAssertEqual(entry.crc, CRC32.checksum(entry.data)) }
    }

    func testMoreThan65535EntriesUseTheZip64EndRecords() throws {
        var zip = try ZipWriter(modified: TestClock.start)
        var bytes: [UInt8] = []
        let count = 65_536 + 10
        for index in 0..<count {
            zip.begin(name: "media/\(index)/empty")
            try zip.end()
            if index % 1000 == 0 { bytes += zip.takeOutput() }
        }
        while try !zip.finish(maximumBytes: 1 << 20) { bytes += zip.takeOutput() }
        bytes += zip.takeOutput()
        let reader = try ZipArchiveReader(bytes)
        XCTAssertTrue(reader.zip64End)
        XCTAssertEqual(reader.entries.count, count)
        XCTAssertEqual(reader.entries.last?.name, "media/\(count - 1)/empty")
        try assertPythonReads(bytes, names: nil, count: count)
    }

    func testDOSTimeIsUTC() {
        // 2026-03-02T09:00:00Z → 09:00:00, 2026-03-02.
        let (time, date) = ZipWriter.dosDateTime(TestClock.start)
        XCTAssertEqual(time, 9 << 11)
        XCTAssertEqual(date, UInt16((2026 - 1980) << 9 | 3 << 5 | 2))
    }

    /// Python's zipfile, an independent reader, lists the archive and checks every CRC.
    private func assertPythonReads(_ bytes: [UInt8], names: [String]?, count: Int? = nil) throws {
        let folder = try TemporaryDirectory(prefix: "zip-test")
        let file = folder.path("a.zip")
        try Data(bytes).write(to: file)
        let script = """
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        bad = z.testzip()
        print(json.dumps({"bad": bad, "names": [i.filename for i in z.infolist()] if len(z.infolist()) < 100 else None, "count": len(z.infolist())}))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let result = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        XCTAssertTrue(result?["bad"] is NSNull, "python found a bad CRC: \(String(describing: result?["bad"]))")
        if let names { XCTAssertEqual(result?["names"] as? [String], names) }
        if let count { XCTAssertEqual(result?["count"] as? Int, count) }
    }
}
