import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MITransport

/// The Python stand-in for mi-server (`Resources/mi_test_server.py`, a resource of this test
/// target; run it by hand with `--help`), started on 127.0.0.1 on a free port for
/// one test and stopped when the test ends. Tests script its misbehaviour through its control file
/// and read what it received from its request log.
final class TestServer {
    let directory: TemporaryDirectory
    let port: Int
    let scheme: String
    private let process: Process
    private let stdinPipe: Pipe
    private var controlURL: URL { directory.path("control.json") }
    private var logURL: URL { directory.path("requests.jsonl") }

    /// Starts the server; with `tls` (PEM certificate chain and key) it speaks HTTPS.
    init(tls: (certificate: URL, key: URL)? = nil) throws {
        directory = try TemporaryDirectory(prefix: "mi-transport-server")
        guard let script = Bundle.module.url(forResource: "mi_test_server", withExtension: "py") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "mi_test_server.py is not among the test resources"])
        }
        var arguments = ["python3", script.path, "--control", directory.path("control.json").path,
                         "--log", directory.path("requests.jsonl").path]
        if let tls { arguments += ["--cert", tls.certificate.path, "--key", tls.key.path] }
        scheme = tls == nil ? "http" : "https"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        stdinPipe = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            process.terminate()
            let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "test server did not start: \(text) \(errors)"])
        }
        self.port = port
    }

    deinit { stop() }

    /// Stops the server and waits for it: its port then refuses connections.
    func stop() {
        guard process.isRunning else { return }
        try? stdinPipe.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// Replaces the control file.
    func control(routes: [String: [Any]] = [:], maxUploadBytes: Int? = nil) throws {
        var control: [String: Any] = ["routes": routes]
        if let maxUploadBytes { control["maxUploadBytes"] = maxUploadBytes }
        try Files.write(try JSONSerialization.data(withJSONObject: control), to: controlURL)
    }

    /// Every request received so far, oldest first.
    func log() -> [[String: Any]] {
        guard let data = try? Data(contentsOf: logURL) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
    }

    /// The logged requests with this method and path (or route: `/api/v1/submissions/{id}`).
    func requests(_ method: String, _ path: String) -> [[String: Any]] {
        log().filter { $0["method"] as? String == method && ($0["path"] as? String == path || $0["route"] as? String == path) }
    }

    /// A `Configuration.Server` for this server, read through MIKit's loader from a test Config.plist.
    func configuration(domain: String = "127.0.0.1", caFile: String? = nil) throws -> Configuration.Server {
        try Self.configuration(scheme: scheme, domain: domain, port: port, caFile: caFile, in: directory)
    }

    static func configuration(scheme: String, domain: String, port: Int, caFile: String? = nil,
                              in directory: TemporaryDirectory) throws -> Configuration.Server {
        // libcurl (and OpenSSL under it) is initialised before the first plist is parsed in this
        // process: with the other order the test process was seen to crash in OpenSSL's exit-time
        // cleanup (OBJ_NAME_cleanup) after every test had passed. `mi`'s exit statuses, checked end
        // to end, never showed it.
        _ = CurlGlobal.isReady
        var edits: [ConfigEdit] = [
            .set("Server.Scheme", .string(scheme)),
            .set("Server.Domain", .string(domain)),
            .set("Server.Port", .integer(port)),
            // The stand-in speaks the one-request upload, not the resumable one (tested against mi-server).
            .set("Server.ResumableThresholdBytes", .integer(1 << 40)),
        ]
        if let caFile { edits.append(.set("Server.CAFile", .string(caFile))) }
        let folder = directory.path("config-\(UUID().uuidString)")
        let plist = try ConfigFixture.write(into: folder, edits)
        return try ConfigurationLoader.load(from: plist).server
    }
}

/// Records the progress an upload reports.
final class ProgressRecorder: TransferProgress {
    private(set) var updates: [(sent: Int64, total: Int64)] = []
    private(set) var finishCount = 0

    func update(sent: Int64, total: Int64) { updates.append((sent, total)) }
    func finish() { finishCount += 1 }
}

/// Form files for uploads.
enum UploadFixture {
    /// A form.json with this id, and media files of the given sizes (named `Qid1(1).jpg`, …),
    /// as the `UploadPart`s of a submission.
    static func files(in directory: TemporaryDirectory, formID: FormID = FormID(),
                      note: String = "", mediaSizes: [Int] = [1000, 70_000]) throws -> (id: FormID, files: [UploadPart]) {
        let folder = directory.path("form-\(UUID().uuidString)")
        let form = directory.path(folder.lastPathComponent, "form.json")
        let json = #"{"id": "\#(formID)", "user": "ana", "name": "Pump 7", "note": "\#(note)"}"#
        try Files.write(json, to: form)
        var files = [UploadPart.form(form)]
        for (index, size) in mediaSizes.enumerated() {
            let name = "Qid1(\(index + 1)).jpg"
            let url = directory.path(folder.lastPathComponent, name)
            try writePattern(bytes: size, seed: index, to: url)
            files.append(UploadPart(name: name, file: url))
        }
        return (formID, files)
    }

    /// Writes `bytes` bytes of a varying pattern, a megabyte at a time (memory stays flat).
    static func writePattern(bytes: Int, seed: Int, to url: URL) throws {
        try Files.write(Data(), to: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written = 0
        var block = 0
        while written < bytes {
            let count = min(1 << 20, bytes - written)
            let chunk = Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ (block &* 7) ^ seed) })
            try handle.write(contentsOf: chunk)
            written += count
            block += 1
        }
    }
}

/// The process's peak resident set size, from /proc/self/status.
enum PeakMemory {
    /// Resets the peak to the current RSS where the kernel allows it (`clear_refs` 5).
    static func reset() {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, "5", 1)
        close(descriptor)
    }

    /// VmHWM in bytes.
    static func highWaterMark() -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int64($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}

/// A throwaway CA and a server certificate for 127.0.0.1 made with the `openssl` command.
struct TestCertificates {
    let caFile: URL
    let certificate: URL
    let key: URL

    init(in directory: TemporaryDirectory) throws {
        let folder = directory.path("tls")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        caFile = folder.appendingPathComponent("ca.pem")
        certificate = folder.appendingPathComponent("server.pem")
        key = folder.appendingPathComponent("server.key")
        let caKey = folder.appendingPathComponent("ca.key").path
        let request = folder.appendingPathComponent("server.csr").path
        let extensions = folder.appendingPathComponent("server.ext")
        try Files.write("""
            subjectAltName = IP:127.0.0.1, DNS:localhost
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth

            """, to: extensions)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + curve + ["-keyout", caKey, "-out", caFile.path, "-days", "2",
                          "-subj", "/CN=MI Transport Test CA",
                          "-addext", "basicConstraints=critical,CA:TRUE",
                          "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try Self.openssl(["req"] + curve + ["-keyout", key.path, "-out", request, "-subj", "/CN=127.0.0.1"])
        try Self.openssl(["x509", "-req", "-in", request, "-CA", caFile.path, "-CAkey", caKey, "-CAcreateserial",
                          "-out", certificate.path, "-days", "2", "-extfile", extensions.path])
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed: \(text)"])
        }
    }
}

/// Runs `body`, failing the test unless it throws a `TransportError`; returns that error.
@discardableResult
func assertTransportError<T>(_ body: () throws -> T, file: StaticString = #filePath,
                             line: UInt = #line) -> TransportError? {
    do {
        let value = try body()
        XCTFail("expected a TransportError, got \(value)", file: file, line: line)
    } catch let error as TransportError {
        return error
    } catch {
        XCTFail("expected a TransportError, got \(error)", file: file, line: line)
    }
    return nil
}
