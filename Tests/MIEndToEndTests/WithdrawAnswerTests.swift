import Foundation
import XCTest

/// An answer can be withdrawn, through the real `mi`: `mi answer FORM Q --clear`, `null` in an
/// answers file, and in `mi fill` the keep-or-clear question after Enter (on a terminal) or
/// `:clear`. Each withdrawal is a `cleared` event in the audit trail; the comment and the media
/// stay; a form with a withdrawn answer is accepted by the real mi-server.
final class WithdrawAnswerTests: XCTestCase {
    private func answers(_ sandbox: Sandbox, _ name: String, in area: String = "Users") throws -> [String: [String: Any]] {
        try XCTUnwrap(try sandbox.formJSON(name, in: area)["answers"] as? [String: [String: Any]])
    }

    private func audit(_ sandbox: Sandbox, _ name: String, in area: String = "Users") throws -> [[String: Any]] {
        try XCTUnwrap(try sandbox.formJSON(name, in: area)["audit"] as? [[String: Any]])
    }

    private func formBytes(_ sandbox: Sandbox, _ name: String) throws -> Data {
        try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
    }

    /// An extinguisher check with every question answered and a photo on the seal question.
    private func answeredForm(_ sandbox: Sandbox, name: String) throws -> String {
        _ = try sandbox.newForm("extinguisher-check", name: name)
        let file = sandbox.root.appendingPathComponent("answers-\(name).json")
        try Data(ForemanTests.extinguisherAnswers.utf8).write(to: file)
        let answered = try sandbox.run(["answer", name, "--file", file.path])
        XCTAssertEqual(answered.status, 0, answered.output)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let attached = try sandbox.run(["attach", name, "seal", photo])
        XCTAssertEqual(attached.status, 0, attached.output)
        return name
    }

    func testAnswerClearWithdrawsTheValueKeepsTheCommentAndIsAudited() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try answeredForm(sandbox, name: "hall-b")
        XCTAssertEqual(try answers(sandbox, name)["weight"]?["value"] as? Double, 6)

        let cleared = try sandbox.run(["answer", name, "weight", "--clear", "--comment", "scale broken"])
        XCTAssertEqual(cleared.status, 0, cleared.output)
        XCTAssertTrue(cleared.stdout.contains("Cleared the answer to weight in \(name)"), cleared.stdout)
        var weight = try XCTUnwrap(try answers(sandbox, name)["weight"])
        XCTAssertNil(weight["value"], "the value is withdrawn: \(weight)")
        XCTAssertEqual(weight["comment"] as? String, "scale broken")
        let events = try audit(sandbox, name).suffix(2)
        XCTAssertEqual(events.map { $0["action"] as? String }, ["cleared", "answered"], "\(events)")
        XCTAssertEqual(events.first?["questions"] as? [String], ["weight"])

        // Withdrawing what is not there changes nothing, not even the audit trail.
        let before = try formBytes(sandbox, name)
        let again = try sandbox.run(["answer", name, "4", "--clear"])
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("weight in \(name) had no answer: nothing to clear"), again.stdout)
        XCTAssertEqual(try formBytes(sandbox, name), before)

        // A value and --clear together are a usage error; the form stays as it was.
        let both = try sandbox.run(["answer", name, "weight", "7", "--clear"])
        XCTAssertEqual(both.status, 64, both.output)
        XCTAssertTrue(both.stderr.contains("or --clear, not both"), both.stderr)
        XCTAssertEqual(try formBytes(sandbox, name), before)
        let withFile = try sandbox.run(["answer", name, "--file", "-", "--clear"], stdin: "{}")
        XCTAssertEqual(withFile.status, 64, withFile.output)
        XCTAssertEqual(try formBytes(sandbox, name), before)

        // The media stay with the question when its answer is withdrawn.
        let seal = try sandbox.run(["answer", name, "seal", "--clear"])
        XCTAssertEqual(seal.status, 0, seal.output)
        XCTAssertTrue(seal.stdout.contains("1 media file kept"), seal.stdout)
        let sealAnswer = try XCTUnwrap(try answers(sandbox, name)["seal"])
        XCTAssertNil(sealAnswer["value"])
        XCTAssertEqual(sealAnswer["media"] as? [String], ["Qid2(1).jpg"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder(name).appendingPathComponent("Qid2(1).jpg").path))

        // The history tells it, in words and in --json.
        let history = try sandbox.run(["review", name, "--history"])
        XCTAssertEqual(history.status, 0, history.output)
        XCTAssertTrue(history.stdout.contains("cleared the answer to weight by ana"), history.stdout)
        XCTAssertTrue(history.stdout.contains("cleared the answer to seal by ana"), history.stdout)
        let json = try sandbox.run(["review", name, "--json", "--history"])
        XCTAssertEqual(json.status, 0, json.output)
        let review = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sentences = (review["audit"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "cleared" }
        XCTAssertEqual(sentences.compactMap { $0["sentence"] as? String },
                       ["cleared the answer to weight by ana", "cleared the answer to seal by ana"], "\(review["audit"] ?? "none")")

        // seal has neither answer nor comment now: submit asks for it; weight is done by its comment.
        let submit = try sandbox.run(["submit", name])
        XCTAssertEqual(submit.status, 65, submit.output)
        XCTAssertTrue(submit.stderr.contains("seal"), submit.stderr)
        XCTAssertFalse(submit.stderr.contains("weight"), submit.stderr)
        weight = try XCTUnwrap(try answers(sandbox, name)["weight"])
        XCTAssertEqual(weight["comment"] as? String, "scale broken")
    }

    /// On main before this change `{"value": null, "comment": …}` kept the old value without a
    /// word; now null withdraws it, the comment beside it applies, and an entry without "value"
    /// still leaves the value alone.
    func testNullInAnAnswersFileWithdrawsTheValue() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try answeredForm(sandbox, name: "post-4")
        let file = #"{"location": null, "weight": {"value": null, "comment": "scale broken"}, "pressure-ok": {"comment": "read twice"}}"#
        let result = try sandbox.run(["answer", name, "--file", "-"], stdin: file)
        XCTAssertEqual(result.status, 0, result.output)
        let answers = try answers(sandbox, name)
        XCTAssertNil(answers["location"]?["value"], "\(answers)")
        XCTAssertNil(answers["weight"]?["value"], "\(answers)")
        XCTAssertEqual(answers["weight"]?["comment"] as? String, "scale broken")
        XCTAssertEqual(answers["pressure-ok"]?["value"] as? Bool, true, "no \"value\": the value stays")
        XCTAssertEqual(answers["pressure-ok"]?["comment"] as? String, "read twice")
        let events = try audit(sandbox, name).suffix(2)
        XCTAssertEqual(events.first?["action"] as? String, "cleared")
        XCTAssertEqual(events.first?["questions"] as? [String], ["location", "weight"])
        XCTAssertEqual(events.last?["action"] as? String, "answered")
        XCTAssertEqual(events.last?["questions"] as? [String], ["pressure-ok", "weight"])

        // A bad value in the same file refuses the whole file: the null does not apply either.
        XCTAssertEqual(try sandbox.run(["answer", name, "location", "Hall B"]).status, 0)
        let before = try formBytes(sandbox, name)
        let refused = try sandbox.run(["answer", name, "--file", "-"], stdin: #"{"location": null, "weight": 99}"#)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("weight"), refused.stderr)
        XCTAssertEqual(try formBytes(sandbox, name), before)
    }

    /// The new types withdraw the same way: a date, a range and a location lose their values;
    /// a photo question's answer is its file, which `--clear` keeps and points to `mi detach` for.
    func testNewTypesWithdrawAndAPhotoKeepsItsFile() throws {
        let sandbox = try Sandbox()
        let template = """
            {"id": "hydrant-check", "title": "Hydrant check", "version": 1, "questions": [
              {"id": "serviced", "type": "date", "text": "Date of the last service"},
              {"id": "rating", "type": "range", "text": "Flow rating", "start": 1, "end": 5, "step": 1},
              {"id": "where", "type": "geopoint", "text": "Where the hydrant stands"},
              {"id": "outlet", "type": "photo", "text": "Photo of the outlet"}
            ]}
            """
        let file = sandbox.root.appendingPathComponent("hydrant-check.json")
        try Data(template.utf8).write(to: file)
        let imported = try sandbox.run(["templates", "import", file.path])
        XCTAssertEqual(imported.status, 0, imported.output)
        let name = try sandbox.newForm("hydrant-check", name: "h-1")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        for (question, value) in [("serviced", "2026-03-14"), ("rating", "4"), ("where", "19.4326 -99.1332"), ("outlet", photo)] {
            let answered = try sandbox.run(["answer", name, question, value])
            XCTAssertEqual(answered.status, 0, "\(question): \(answered.output)")
        }
        let cleared = try sandbox.run(["answer", name, "--file", "-"], stdin: #"{"serviced": null, "rating": null, "where": null}"#)
        XCTAssertEqual(cleared.status, 0, cleared.output)
        let answers = try answers(sandbox, name)
        for question in ["serviced", "rating", "where"] { XCTAssertNil(answers[question]?["value"], "\(question): \(answers)") }
        XCTAssertEqual(try audit(sandbox, name).last?["questions"] as? [String], ["rating", "serviced", "where"])

        let before = try formBytes(sandbox, name)
        let media = try sandbox.run(["answer", name, "outlet", "--clear"])
        XCTAssertEqual(media.status, 0, media.output)
        XCTAssertTrue(media.stdout.contains("The answer to outlet is its attached files: nothing to clear"), media.stdout)
        XCTAssertTrue(media.stdout.contains("mi detach h-1"), media.stdout)
        XCTAssertEqual(try formBytes(sandbox, name), before, "the photo stays, nothing is recorded")
    }

    /// On a terminal Enter on an answered question asks: Enter again keeps it (what Enter always
    /// did), a new line is the new answer, `clear` withdraws it.
    func testFillOnATerminalAsksBeforeAnEmptyLineAndClearWithdraws() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try answeredForm(sandbox, name: "hall-b")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", name])

        // Every question is done: fill opens at the review. Question 1, Enter, a new answer.
        XCTAssertTrue(terminal.waitFor("Review: a question number"), terminal.output)
        terminal.type("1\r")
        XCTAssertTrue(terminal.waitFor("Current answer: Hall B"), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps Hall B; type clear to withdraw it, or a new answer > "), terminal.output)
        terminal.type("Hall C\r")
        // Question 4, Enter, Enter: kept.
        XCTAssertTrue(terminal.waitFor("Review: a question number", occurrence: 2), terminal.output)
        terminal.type("4\r")
        XCTAssertTrue(terminal.waitFor("Number > "), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps 6; type clear"), terminal.output)
        terminal.type("\r")
        // Question 4 again, Enter, clear: withdrawn, and the question is asked again; :x leaves it open.
        XCTAssertTrue(terminal.waitFor("Review: a question number", occurrence: 3), terminal.output)
        terminal.type("4\r")
        XCTAssertTrue(terminal.waitFor("Number > ", occurrence: 2), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps 6; type clear", occurrence: 2), terminal.output)
        terminal.type("clear\r")
        XCTAssertTrue(terminal.waitFor("Cleared the answer. Type a new answer"), terminal.output)
        XCTAssertTrue(terminal.waitFor("Number > ", occurrence: 3), terminal.output)
        terminal.type(":x\r")
        XCTAssertTrue(terminal.waitFor("1 question(s) still open"), terminal.output)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)

        let answers = try answers(sandbox, name)
        XCTAssertEqual(answers["location"]?["value"] as? String, "Hall C")
        XCTAssertNil(answers["weight"]?["value"], "\(answers)")
        let actions = try audit(sandbox, name).compactMap { event -> String? in
            guard let action = event["action"] as? String else { return nil }
            return action + ":" + ((event["questions"] as? [String]) ?? []).joined(separator: ",")
        }
        XCTAssertEqual(actions.suffix(2), ["answered:location", "cleared:weight"], "Enter, Enter kept weight without an event: \(actions)")
    }

    /// Piped, an empty line keeps the answer without asking (scripts read as before) and
    /// `:clear` withdraws it; the seal's photo stays.
    func testPipedFillKeepsOnAnEmptyLineAndClearsOnClear() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try answeredForm(sandbox, name: "hall-b")
        let kept = try sandbox.run(["fill", name], stdin: "3\n\n\n")
        XCTAssertEqual(kept.status, 0, kept.output)
        XCTAssertFalse(kept.stdout.contains("type clear"), kept.stdout)
        XCTAssertEqual(try answers(sandbox, name)["seal"]?["value"] as? [String], ["Intact"])

        let cleared = try sandbox.run(["fill", name], stdin: "3\n:clear\n:x\n")
        XCTAssertEqual(cleared.status, 0, cleared.output)
        XCTAssertTrue(cleared.stdout.contains("Cleared the answer (1 media file kept)"), cleared.stdout)
        let seal = try XCTUnwrap(try answers(sandbox, name)["seal"])
        XCTAssertNil(seal["value"])
        XCTAssertEqual(seal["media"] as? [String], ["Qid2(1).jpg"])
        XCTAssertEqual(try audit(sandbox, name).last?["action"] as? String, "cleared")
    }

    /// A withdrawn answer with a comment in its place is a done question: the form is submitted
    /// and uploaded, and mi-server stores it with the `cleared` event.
    func testAFormWithAWithdrawnAnswerIsUploadedAndStored() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let templates = try sandbox.run(["templates"])
        XCTAssertEqual(templates.status, 0, templates.output)
        let name = try answeredForm(sandbox, name: "hall-b")
        let cleared = try sandbox.run(["answer", name, "weight", "--clear", "--comment", "scale broken"])
        XCTAssertEqual(cleared.status, 0, cleared.output)
        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let id = try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["id"] as? String).lowercased()
        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("receipt verified"), upload.stdout)

        let stored = sandbox.root.appendingPathComponent("server-data/submissions/\(id)/form.json")
        let form = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: stored)) as? [String: Any])
        let weight = try XCTUnwrap((form["answers"] as? [String: [String: Any]])?["weight"])
        XCTAssertNil(weight["value"])
        XCTAssertEqual(weight["comment"] as? String, "scale broken")
        let actions = (form["audit"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
        XCTAssertTrue(actions.contains("cleared"), "the withdrawal travels with the upload: \(actions)")
        let receipt = try sandbox.curl(["-H", "Authorization: Bearer \(try sandbox.apiToken("fiona"))"], path: "/api/v1/submissions/\(id)")
        XCTAssertTrue(receipt.hasPrefix("HTTP/1.1 200"), receipt)
        withExtendedLifetime(server) {}
    }
}
