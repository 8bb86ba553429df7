import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import TestSupport
import XCTest

/// The upload as libcurl (what `mi upload` uses) sends it: `-F` parts streamed from files,
/// `Expect: 100-continue` for bodies over 1 MiB.
final class CurlTests: XCTestCase {
    struct CurlResult: Sendable {
        var status: Int
        var body: String
        var trace: String
        var seconds: Double
    }

    static let curl = "/usr/bin/curl"

    /// Uploads `form` and `media` files with curl; returns the status, the body and curl's -v trace.
    static func upload(port: Int, token: String, form: URL, media: [URL]) async throws -> CurlResult {
        var arguments = ["-H", "Authorization: Bearer \(token)",
                         "-F", "form=@\(form.path);type=application/json;filename=form.json"]
        for file in media {
            arguments += ["-F", "\(file.lastPathComponent)=@\(file.path);type=application/octet-stream"]
        }
        return try await run(arguments + ["http://localhost:\(port)/api/v1/submissions"])
    }

    /// Runs curl with `arguments` (after `-sS -v`); returns the status, the body and the -v trace.
    static func run(_ arguments: [String]) async throws -> CurlResult {
        try await RawHTTPConnection.run {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-sS", "-v", "-o", output.path, "-w", "%{http_code} %{time_total}"] + arguments
            let stdout = Pipe()
            let stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            let trace = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let summary = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let fields = summary.split(separator: " ")
            let body = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return CurlResult(status: fields.first.flatMap { Int($0) } ?? 0, body: body, trace: trace,
                              seconds: fields.dropFirst().first.flatMap { Double($0) } ?? 0)
        }
    }

    func testCurlUploadIsAnswered100ContinueWithoutWaiting() async throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.curl), "curl is needed: apt-get install curl")
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", .integer(8 << 20))])
        let folder = fixture.directory.path("upload")
        let form = folder.appendingPathComponent("form.json")
        try Files.write(try ServerFixture.formData(media: ["Qid0(1).jpg"]), to: form)
        let picture = folder.appendingPathComponent("Qid0(1).jpg")
        try Files.write(Data((0..<(3 << 20)).map { UInt8($0 % 253) }), to: picture)
        try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            let result = try await Self.upload(port: try XCTUnwrap(client.port), token: token, form: form, media: [picture])
            XCTAssertEqual(result.status, 201, result.body)
            XCTAssertTrue(result.trace.contains("Expect: 100-continue"), result.trace)
            XCTAssertTrue(result.trace.contains("< HTTP/1.1 100 Continue"), result.trace)
            XCTAssertLessThan(result.seconds, 0.9, "curl waited for the 100 Continue")
        }
    }

    /// A 256 MiB media file streams through with flat memory (the 1 GiB figures are in BENCHMARKS.md).
    func testLargeUploadKeepsMemoryFlat() async throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.curl), "curl is needed: apt-get install curl")
        let fixture = try ServerFixture([.set("Server.MaxUploadBytes", .integer(2 << 30))])
        let folder = fixture.directory.path("upload")
        let form = folder.appendingPathComponent("form.json")
        try Files.write(try ServerFixture.formData(media: ["Qid0(1).jpg"]), to: form)
        let big = folder.appendingPathComponent("Qid0(1).jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 256 << 20)
        try handle.close()
        let before = Self.peakResidentBytes()
        let start = Date()
        let result = try await fixture.test(.live) { client in
            let token = try await client.login("fiona")
            return try await Self.upload(port: try XCTUnwrap(client.port), token: token, form: form, media: [big])
        }
        let after = Self.peakResidentBytes()
        XCTAssertEqual(result.status, 201, result.body)
 print("256 MiB upload: \(Date().timeIntervalSince(start)) s, peak RSS \(before >> 20) MiB before, \(after >> 20) MiB after")
        // The test process's high-water mark before the upload holds whatever the tests before it
        // used; a 256 MiB file held in memory would raise it by at least that much.
        XCTAssertLessThan(after - before, 64 << 20, "peak RSS grew by \((after - before) >> 20) MiB during the upload")
        let stored = fixture.layout.submissions
        let id = try XCTUnwrap(Files.names(in: stored).first)
        let attributes = try FileManager.default.attributesOfItem(atPath: stored.appendingPathComponent("\(id)/Qid0(1).jpg").path)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.int64Value, 256 << 20)
        XCTAssertTrue(result.body.contains("\"size\":268435456"), result.body)
        // SHA-256 of 256 MiB of zero bytes.
        XCTAssertTrue(result.body.contains("a6d72ac7690f53be6ae46ba88506bd97302a093f7108472bd9efc3cefda06484"), result.body)
    }

    /// VmHWM of this process.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
