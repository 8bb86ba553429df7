import Foundation
import MIKit
import TestSupport
import XCTest

/// The real mi-server recomputes the scores of uploaded forms: every hand-worked IPAQ case
/// (`IPAQCases`) made with the real `mi`, counted by `mi stats`, uploaded by `mi upload`, and its
/// receipt's scores compared with the hand-worked figures.
final class ServerScoringTests: XCTestCase {
    /// `{"firstQuestionVigorous": 3, "fifthQuestionWalk": {"comment": "No sé"}, …}`.
    static func answersFile(_ answers: [String: Int?]) throws -> String {
        let object = answers.mapValues { value -> Any in value.map { $0 as Any } ?? ["comment": "No sé"] }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static let activityQuestions = [IPAQCases.vigorousDays, IPAQCases.vigorousMinutes, IPAQCases.moderateDays,
                                    IPAQCases.moderateMinutes, IPAQCases.walkingDays, IPAQCases.walkingMinutes]

    /// The shipped IPAQ template without its consent and once-per-user rule, which the scores
    /// do not depend on, so that one technician can fill every case.
    static func prepareIPAQ(_ sandbox: Sandbox) throws {
        let templates = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let source = sandbox.repository.appendingPathComponent("Samples/templates/ipaq.json")
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        object["consent"] = nil
        object["oncePerUser"] = nil
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            .write(to: templates.appendingPathComponent("ipaq.json"))
    }

    func testEveryIPAQCaseUploadedGetsTheServersScoresInItsReceipt() throws {
        let sandbox = try Sandbox()
        try Self.prepareIPAQ(sandbox)
        let server = try RunningServer(sandbox)
        defer { withExtendedLifetime(server) {} }
        let listed = try sandbox.run(["templates"])
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.output.contains("ipaq"), listed.output)
        var ids: [(IPAQCase, String)] = []
        var direct: [IPAQCase] = []
        for (index, ipaqCase) in IPAQCases.all.enumerated() {
            // `mi submit` needs every question answered or commented, and the form refuses
            // days over 7: such cases reach the server as a form.json written elsewhere.
            guard ipaqCase.formAccepts, Self.activityQuestions.allSatisfy({ ipaqCase.answers.keys.contains($0) }) else {
                direct.append(ipaqCase)
                continue
            }
            var answers = ipaqCase.answers
            if answers[IPAQCases.sittingMinutes] == nil { answers[IPAQCases.sittingMinutes] = .some(nil) }
            let name = try sandbox.newForm("ipaq", name: "ipaq-\(index + 1)")
            let answered = try sandbox.run(["answer", name, "--file", "-"], stdin: try Self.answersFile(answers))
            XCTAssertEqual(answered.status, 0, "\(ipaqCase.name): \(answered.output)")
            let submitted = try sandbox.run(["submit", name])
            XCTAssertEqual(submitted.status, 0, "\(ipaqCase.name): \(submitted.output)")
            ids.append((ipaqCase, try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()))
        }
        XCTAssertGreaterThanOrEqual(ids.count, 2)

        // mi stats counts the categories of the local forms.
        let stats = try sandbox.run(["stats", "ipaq"], as: "fiona")
        XCTAssertEqual(stats.status, 0, stats.output)
        XCTAssertTrue(stats.stdout.contains("── Scores "), stats.stdout)
        let categories = Dictionary(ids.map { ($0.0.expected["ipaq.category"]?.display ?? "", 1) }, uniquingKeysWith: +)
        XCTAssertTrue(stats.stdout.contains("ipaq.category — \(ids.count) forms"), stats.stdout)
        for (category, count) in categories {
            XCTAssertNotNil(stats.stdout.range(of: #"\#(category) .*\b\#(count) +\d+\.\d %"#, options: .regularExpression),
                            "\(category) \(count) in\n\(stats.stdout)")
        }

        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        let token = try sandbox.apiToken("fiona")
        for (ipaqCase, id) in ids {
            let response = try sandbox.curl(["-H", "Authorization: Bearer \(token)"], path: "/api/v1/submissions/\(id)")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 200"), response)
            let body = try XCTUnwrap(response.range(of: "\r\n\r\n", options: .backwards).map { String(response[$0.upperBound...]) }, response)
            let receipt = try WireJSON.decoder().decode(Receipt.self, from: Data(body.utf8))
            XCTAssertEqual(receipt.scores, ipaqCase.expected, ipaqCase.name)
        }

        // The rest as a form.json made elsewhere, claiming scores of its own: the receipt has
        // the server's.
        XCTAssertFalse(direct.isEmpty)
        let template = try TemplateCoding().decode(
            Data(contentsOf: sandbox.root.appendingPathComponent("server-templates/ipaq.json")), source: "ipaq.json")
        for (index, ipaqCase) in direct.enumerated() {
            var form = Form(name: "direct-\(index)", user: "ana", template: template, createdAt: Date())
            form.status = .completed
            form.submittedAt = Date()
            form = ipaqCase.applied(to: form)
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try FormFile.encode(form)) as? [String: Any])
            object["scores"] = ["ipaq.category": "high", "ipaq.totalMET": 99_999]
            let file = sandbox.root.appendingPathComponent("direct-\(index).json")
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            let response = try sandbox.curl(["-H", "Authorization: Bearer \(token)", "-F", "form=@\(file.path);filename=form.json;type=application/json"],
                                            path: "/api/v1/submissions")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 201"), response)
            let body = try XCTUnwrap(response.range(of: "\r\n\r\n", options: .backwards).map { String(response[$0.upperBound...]) }, response)
            let receipt = try WireJSON.decoder().decode(Receipt.self, from: Data(body.utf8))
            XCTAssertEqual(receipt.scores, ipaqCase.expected, ipaqCase.name)
        }
    }
}
