import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// Found in review of the new question types: a form.json uploaded to the real mi-server is
/// checked by MIKit's answer rules (a note holds nothing, every value is one its type takes), and
/// `mi new` refuses a second form of a once-per-user template before it waits for gpsd.
final class NewTypesRefusalTests: XCTestCase {
    static let template = #"""
        {"id": "tagged", "title": "Tagged hydrant", "version": 1, "questions": [
          {"id": "intro", "type": "note", "text": "Stand clear of the outlet."},
          {"id": "serviced", "type": "date", "text": "Date of the last service"},
          {"id": "arrived", "type": "time", "text": "Arrival time"},
          {"id": "tested", "type": "dateTime", "text": "Flow test started"},
          {"id": "flow", "type": "range", "text": "Flow rating", "start": 1, "end": 5, "step": 1},
          {"id": "site", "type": "geopoint", "text": "Where is it?"},
          {"id": "tag", "type": "barcode", "text": "Asset tag"},
          {"id": "outlet", "type": "photo", "text": "Photo of the outlet"}
        ]}
        """#
    static let zone = "America/Mexico_City"
    static let answers = #"{"serviced": "2026-11-20", "arrived": "08:15", "tested": "2026-11-20T10:00", "flow": 4, "site": "19.4326 -99.1332 2240 4", "tag": "HY-00417"}"#

    /// A completed form of ana's named `name`, with every type answered and the photo attached.
    func completed(_ sandbox: Sandbox, _ name: String) throws {
        let made = try sandbox.run(["new", "tagged", "--name", name], environment: ["TZ": Self.zone])
        XCTAssertEqual(made.status, 0, made.output)
        let file = sandbox.root.appendingPathComponent("\(name).json")
        try Data(Self.answers.utf8).write(to: file)
        let answered = try sandbox.run(["answer", name, "--file", file.path])
        XCTAssertEqual(answered.status, 0, answered.output)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let attached = try sandbox.run(["answer", name, "outlet", photo])
        XCTAssertEqual(attached.status, 0, attached.output)
        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)
    }

    func submissions(_ sandbox: Sandbox) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("server-data/submissions").path)) ?? []
    }

    func testTheServerRefusesAnUploadedValueItsQuestionWouldRefuse() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("tagged.json"))
        let server = try RunningServer(sandbox)
        for user in ["ana", "fiona"] {
            let templates = try sandbox.run(["templates"], as: user)
            XCTAssertEqual(templates.status, 0, templates.output)
        }

        // Each edit of a valid form.json, and what the refusal names.
        let cases: [(name: String, from: String, to: String, says: String)] = [
            ("t-note", #""answers":{"#, #""answers":{"intro":{"media":[],"value":"read it"},"#,
             "question intro (1 of 8): this is a note"),
            ("t-note-comment", #""answers":{"#, #""answers":{"intro":{"comment":"ok","media":[]},"#,
             "question intro (1 of 8): this is a note"),
            ("t-date", #""2026-11-20""#, #""2026-02-30""#, "question serviced (2 of 8)"),
            ("t-time", #""08:15""#, #""25:00""#, "question arrived (3 of 8)"),
            ("t-range", #""value":4"#, #""value":2.5"#, "question flow (5 of 8)"),
            ("t-today", #""2026-11-20""#, #""today""#, "question serviced (2 of 8): the stored value \"today\" is not one MI stores"),
            ("t-point", #""site":{"media":[],"value":{"#, #""site":{"media":[],"value":"somewhere","unused":{"#, "question site (6 of 8)"),
            ("t-code", #""HY-00417""#, #""  ""#, "question tag (7 of 8): the code is empty"),
            ("t-photo", #""outlet":{"#, #""outlet":{"value":"gauge.jpg","#, "question outlet (8 of 8): a photo question takes no typed value"),
        ]
        for item in cases {
            try completed(sandbox, item.name)
            let file = sandbox.formFolder(item.name, in: "CompletedMIs").appendingPathComponent("form.json")
            var text = try String(contentsOf: file, encoding: .utf8)
            XCTAssertTrue(text.contains(item.from), "\(item.name): \(text)")
            text = text.replacingOccurrences(of: item.from, with: item.to, options: [], range: text.range(of: item.from))
            try Data(text.utf8).write(to: file)
            let before = try Data(contentsOf: file)

            let upload = try sandbox.run(["upload", "ana/\(item.name)"], as: "fiona")
            XCTAssertNotEqual(upload.status, 0, "\(item.name): \(upload.output)")
            XCTAssertTrue(upload.output.contains("was not stored: \(item.says)"), "\(item.name): \(upload.output)")
            XCTAssertTrue(upload.output.contains("was not uploaded and is kept"), "\(item.name): \(upload.output)")
            XCTAssertTrue(upload.output.contains("MI never stores such an answer"), "\(item.name): \(upload.output)")
            XCTAssertEqual(try Data(contentsOf: file), before, "\(item.name): the local form is unchanged")
            XCTAssertEqual(submissions(sandbox), [], "\(item.name): nothing stored on the server")
        }
        let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("422"), "the refusals are 422s: \(log.suffix(2000))")

        // The same form untouched goes through: every new type's value is one MI stores.
        try completed(sandbox, "t-good")
        let upload = try sandbox.run(["upload", "ana/t-good"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertEqual(submissions(sandbox).count, 1)
        withExtendedLifetime(server) {}
    }

    /// An answers file with one bad value of any new type saves nothing, and says which question.
    func testAnswersFileBadValuesOfEveryNewTypeChangeNothing() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("tagged.json"))
        XCTAssertEqual(try sandbox.run(["templates", "import", folder.path]).status, 0)
        let made = try sandbox.run(["new", "tagged", "--name", "a-1"], environment: ["TZ": Self.zone])
        XCTAssertEqual(made.status, 0, made.output)
        let form = sandbox.formFolder("a-1").appendingPathComponent("form.json")
        let before = try Data(contentsOf: form)
        let cases: [(String, String)] = [
            (#"{"intro": "read"}"#, "question intro (1 of 8): this is a note"),
            (#"{"intro": {"comment": "seen"}}"#, "question intro (1 of 8): this is a note"),
            (#"{"serviced": "2026-02-30"}"#, "question serviced (2 of 8)"),
            (#"{"serviced": "03/04/2026"}"#, "question serviced (2 of 8)"),
            (#"{"serviced": 20261120}"#, "question serviced (2 of 8)"),
            (#"{"arrived": "25:00"}"#, "question arrived (3 of 8)"),
            (#"{"tested": "2026-11-26T25:00"}"#, "question tested (4 of 8)"),
            (#"{"flow": 2.5}"#, "question flow (5 of 8)"),
            (#"{"flow": 6}"#, "question flow (5 of 8)"),
            (#"{"site": "95 10"}"#, "question site (6 of 8)"),
            (#"{"site": {"value": {"latitude": 19, "longitude": 200}}}"#, "question site (6 of 8)"),
            (#"{"tag": " "}"#, "question tag (7 of 8): the code is empty"),
            (#"{"outlet": "gauge.jpg"}"#, "question outlet (8 of 8): a photo question takes no typed value"),
        ]
        for (json, message) in cases {
            // Each with a good value beside it: nothing at all is saved.
            let body = json.dropLast() + #", "flow": 3}"#
            let refused = try sandbox.run(["answer", "a-1", "--file", "-"], stdin: json.contains("\"flow\"") ? json : String(body))
            XCTAssertEqual(refused.status, 65, "\(json): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains(message), "\(json): \(refused.stderr)")
            XCTAssertEqual(refused.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1, "one message: \(refused.stderr)")
            XCTAssertEqual(try Data(contentsOf: form), before, "\(json): form.json unchanged")
        }
    }

    /// `mi fill --help` says how the new kinds of question are answered, as docs/cli.md does.
    func testFillHelpSaysHowLocationBarcodeAndMediaQuestionsAreAnswered() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run(["fill", "--help"], as: nil)
        XCTAssertEqual(help.status, 0, help.output)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["or gps takes a fix from gpsd", ":scan PHOTO reads it from a photo", "question takes the file's path", "a note is shown and passed"] {
            XCTAssertTrue(text.contains(phrase), "\(phrase): \(help.stdout)")
        }
        let attach = try sandbox.run(["attach", "--help"], as: nil)
        let attachText = attach.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(attachText.contains("takes only files of its kind, up to its maxFiles: they are its answer. A note takes no file."), attach.stdout)
    }

    // MARK: - mi new: once per user before gpsd

    /// A loopback TCP port that accepts connections and never says anything: a gpsd that never
    /// gives a fix. Closed when the test ends.
    func silentListener() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(descriptor, 8), 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        addTeardownBlock { close(descriptor) }
        return UInt16(bigEndian: address.sin_port)
    }

    func testNewRefusesASecondOncePerUserFormWithoutWaitingForGpsd() throws {
        let port = try silentListener()
        let sandbox = try Sandbox(extraPlist: "<key>Location</key><dict><key>GPSD</key><string>127.0.0.1:\(port)</string></dict>")
        let folder = sandbox.root.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = #"{"id": "survey", "title": "Survey", "version": 1, "oncePerUser": true, "captureLocation": true, "questions": [{"id": "q", "type": "shortAnswer", "text": "Q"}]}"#
        try Data(template.utf8).write(to: folder.appendingPathComponent("survey.json"))
        XCTAssertEqual(try sandbox.run(["templates", "import", folder.path]).status, 0)
        let first = try sandbox.run(["new", "survey", "--name", "s-1", "--location", "19.4326 -99.1332"])
        XCTAssertEqual(first.status, 0, first.output)

        let started = Date()
        let second = try sandbox.run(["new", "survey", "--name", "s-2", "--gps-timeout", "30"])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertNotEqual(second.status, 0, second.output)
        XCTAssertTrue(second.stderr.contains("is answered once per person"), second.output)
        XCTAssertTrue(second.stderr.contains("s-1"), second.output)
        XCTAssertFalse(second.stderr.contains("no location recorded"), "gpsd was not asked: \(second.output)")
        XCTAssertLessThan(seconds, 15, "refused at once, not after gpsd's 30-second timeout")
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("s-2").path))
    }
}
