import Foundation
import XCTest

/// Form logic (issue 24 items 2 and 4) through the real `mi` and mi-server: `mi fill` skips what
/// is not relevant, `mi answer` checks constraints (one reading a calculation) and choice
/// filters, `mi submit` demands required values and clears irrelevant answers with an audit
/// event, and the server refuses a forged form.json with 422, storing nothing.
final class FormLogicEndToEndTests: XCTestCase {
    static let template = #"""
        {"id": "logic-check", "title": "Logic check", "version": 1, "questions": [
          {"id": "leak", "type": "trueFalse", "text": "Is there a leak?"},
          {"id": "where", "type": "shortAnswer", "text": "Where is the leak?", "relevant": "${leak} = 'true'"},
          {"id": "rated", "type": "numeric", "text": "Rated pressure", "default": "10"},
          {"id": "limit", "type": "calculate", "text": "Limit", "calculation": "${rated} * 1.1"},
          {"id": "pressure", "type": "numeric", "text": "Measured pressure", "constraint": ". <= ${limit}",
           "constraintMessage": "Above 110% of the rating"},
          {"id": "reason", "type": "shortAnswer", "text": "Why so high?", "required": "${pressure} > ${rated}",
           "requiredMessage": "Say why the pressure is above the rating"},
          {"id": "region", "type": "multipleChoice", "text": "Region", "options": ["north", "south"]},
          {"id": "site", "type": "multipleChoice", "text": "Site", "choiceFilter": "region = ${region}",
           "options": [{"name": "n1", "label": "North 1", "region": "north"},
                       {"name": "s1", "label": "South 1", "region": "south"}]}
        ]}
        """#

    private func prepare(_ sandbox: Sandbox) throws {
        try ServerTests.prepare(sandbox)
        try Data(Self.template.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/logic-check.json"))
    }

    private func upload(_ sandbox: Sandbox, _ file: URL, token: String) throws -> String {
        try sandbox.curl(["-H", "Authorization: Bearer \(token)", "-F", "form=@\(file.path);filename=form.json;type=application/json"],
                         path: "/api/v1/submissions")
    }

    func testFillAnswerSubmitAndTheServerFollowTheTemplatesLogic() throws {
        let directory = try TestDirectory()
        defer { directory.stop() }
        let sandbox = try Sandbox(directory: directory)
        try prepare(sandbox)
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)

        // mi fill, piped: the leak's place is not asked, the limit is computed, the rating's
        // default is kept with Enter, the reason is required because 10.5 is above 10.
        _ = try sandbox.newForm("logic-check", name: "f1")
        let filled = try sandbox.run(["fill", "f1"], stdin: "no\n\n10.5\nvalve stuck\nsouth\ns1\n:s\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        let asked = String(filled.stdout.components(separatedBy: "questions done").first ?? "")
        XCTAssertTrue(asked.contains("Is there a leak?") && asked.contains("Why so high?"), asked)
        XCTAssertFalse(asked.contains("Where is the leak?"), "not relevant, not asked: \(asked)")
        XCTAssertFalse(asked.contains("Limit"), "a calculation is not asked: \(asked)")
        XCTAssertTrue(filled.stdout.contains("(not relevant — not submitted)"), filled.stdout)
        XCTAssertTrue(asked.contains("Offered here: South 1"), "the choice filter narrows the site's options: \(asked)")
        let first = try sandbox.formJSON("f1", in: "CompletedMIs")
        let answers = try XCTUnwrap(first["answers"] as? [String: Any])
        XCTAssertEqual((answers["limit"] as? [String: Any])?["value"] as? String, "11")
        XCTAssertEqual((answers["rated"] as? [String: Any])?["value"] as? Double, 10)

        // mi answer: a constraint that reads a calculation, then the same value after the
        // rating (and so the limit) changed; a choice the filter does not offer.
        _ = try sandbox.newForm("logic-check", name: "f2")
        let tooHigh = try sandbox.run(["answer", "f2", "pressure", "12"])
        XCTAssertNotEqual(tooHigh.status, 0)
        XCTAssertTrue(tooHigh.stderr.contains("Above 110% of the rating"), tooHigh.stderr)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "rated", "20"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "pressure", "12"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "region", "north"]).status, 0)
        let filtered = try sandbox.run(["answer", "f2", "site", "s1"])
        XCTAssertNotEqual(filtered.status, 0)
        XCTAssertTrue(filtered.stderr.contains("'s1' is not offered here"), filtered.stderr)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "site", "n1"]).status, 0)
        // Relevance: the leak's place answered while there was a leak, then the leak withdrawn.
        XCTAssertEqual(try sandbox.run(["answer", "f2", "leak", "yes"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "where", "flange"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "leak", "no"]).status, 0)
        let review = try sandbox.run(["review", "f2", "--json"])
        let questions = (try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])?["questions"] as? [[String: Any]]
        XCTAssertEqual(questions?.first { $0["id"] as? String == "where" }?["relevantNow"] as? Bool, false, review.stdout)
        // Required by expression: 12 > 10 was not, 12 > 20 is not; make it so, then a comment alone does not do.
        XCTAssertEqual(try sandbox.run(["answer", "f2", "rated", "11"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "reason", "--comment", "unknown"]).status, 0)
        let refused = try sandbox.run(["submit", "f2"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Say why the pressure is above the rating"), refused.stderr)
        XCTAssertEqual(try sandbox.run(["answer", "f2", "reason", "gauge", "drift"]).status, 0)
        let submitted = try sandbox.run(["submit", "f2"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let second = try sandbox.formJSON("f2", in: "CompletedMIs")
        XCTAssertNil(((second["answers"] as? [String: Any])?["where"] as? [String: Any])?["value"], "not relevant: cleared at submission")
        let audit = try XCTUnwrap(second["audit"] as? [[String: Any]])
        let cleared = try XCTUnwrap(audit.first { $0["action"] as? String == "cleared" })
        XCTAssertEqual(cleared["questions"] as? [String], ["where"])
        XCTAssertTrue((cleared["note"] as? String)?.contains("not relevant") == true, "\(cleared)")

        // The server judges again: forged copies of f2 are refused with 422 naming the
        // question and the message, and nothing is stored; the form as `mi` made it is accepted.
        let token = try sandbox.apiToken("fiona")
        let forgeries: [(name: String, question: String, value: Any, message: String)] = [
            ("irrelevant", "where", "flange", "question where: the question is not relevant"),
            ("constraint", "pressure", 50, "question pressure: Above 110% of the rating"),
            ("calculation", "limit", "99", "question limit: the calculated value is '99'"),
        ]
        let submissions = sandbox.root.appendingPathComponent("server-data/submissions")
        for forgery in forgeries {
            var json = second
            var answers = json["answers"] as? [String: Any] ?? [:]
            var answer = answers[forgery.question] as? [String: Any] ?? ["media": [String]()]
            answer["value"] = forgery.value
            answers[forgery.question] = answer
            json["answers"] = answers
            let file = sandbox.root.appendingPathComponent("forged-\(forgery.name).json")
            try JSONSerialization.data(withJSONObject: json).write(to: file)
            let answered = try upload(sandbox, file, token: token)
            XCTAssertTrue(answered.hasPrefix("HTTP/1.1 422"), "\(forgery.name): \(answered)")
            XCTAssertTrue(answered.contains(forgery.message), "\(forgery.name): \(answered)")
            XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path)) ?? [], [], "\(forgery.name): nothing stored")
        }
        let honest = sandbox.root.appendingPathComponent("honest.json")
        try JSONSerialization.data(withJSONObject: second).write(to: honest)
        let accepted = try upload(sandbox, honest, token: token)
        XCTAssertTrue(accepted.hasPrefix("HTTP/1.1 201"), accepted)
        withExtendedLifetime(server) {}
    }

    /// `mi fill` on a terminal: a constraint's message at once and the question asked again; a
    /// question required by an expression refuses Enter with its message; the irrelevant
    /// question is passed by.
    func testFillOnATerminalShowsConstraintAndRequiredMessagesAndAsksAgain() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        _ = try sandbox.newForm("logic-check", name: "t1")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", "t1"], plainLocale: false)
        XCTAssertTrue(terminal.waitFor("Is there a leak?"), terminal.output)
        terminal.type("no\r")
        XCTAssertTrue(terminal.waitFor("Current answer: 10"), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps 10"), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Measured pressure"), terminal.output)
        terminal.type("50\r")
        XCTAssertTrue(terminal.waitFor("Above 110% of the rating — try again"), terminal.output)
        terminal.type("10.5\r")
        XCTAssertTrue(terminal.waitFor("Why so high?"), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Say why the pressure is above the rating — try again"), terminal.output)
        terminal.type("valve stuck\r")
        XCTAssertTrue(terminal.waitFor("Region"), terminal.output)
        terminal.type("north\r")
        XCTAssertTrue(terminal.waitFor("Offered here: North 1"), terminal.output)
        terminal.type("n1\r")
        XCTAssertTrue(terminal.waitFor("Review:"), terminal.output)
        terminal.type(":s\r")
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)
        XCTAssertFalse(terminal.output.contains("Where is the leak?\r\n"), "not relevant, not asked")
        let answers = try sandbox.formJSON("t1", in: "CompletedMIs")["answers"] as? [String: [String: Any]]
        XCTAssertEqual(answers?["pressure"]?["value"] as? Double, 10.5)
        XCTAssertEqual(answers?["site"]?["value"] as? [String], ["n1"])
        withExtendedLifetime(server) {}
    }

    /// `mi simulate` of a template with logic makes forms that `mi submit` accepts.
    func testSimulatedFormsOfATemplateWithLogicSubmit() throws {
        let sandbox = try Sandbox()
        try prepare(sandbox)
        let server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        let simulated = try sandbox.run(["simulate", "logic-check", "--count", "15", "--seed", "7", "--submit"])
        XCTAssertEqual(simulated.status, 0, simulated.output)
        let completed = sandbox.documents.appendingPathComponent("CompletedMIs/ana")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: completed.path)) ?? []
        XCTAssertEqual(names.count, 15, simulated.output)
        withExtendedLifetime(server) {}
    }
}
