import Foundation
import XCTest

/// The shipped pump inspection (Samples/templates/pump-inspection.json) says its rules with form
/// logic, not in help text: "None" only alone is a constraint on `leaks`, and `leak_photo` is
/// asked only when there is a leak. Through the real `mi`, and uploaded to a real mi-server.
final class PumpSampleLogicTests: XCTestCase {
    static let constraintMessage = "None cannot be chosen together with a place that leaks"
    static let gauge = Sandbox.repositoryRoot.appendingPathComponent("Samples/media/gauge.jpg")

    /// Every question of the pump inspection but `leaks` and `leak_photo`, as an answers file.
    static let otherAnswers = #"""
        {"guard": true, "noise": ["Normal"], "checks": ["Alignment", "Vibration"], "pressure": 4.5, "hours": 1200,
         "bearings": [["61", "2.5"], ["58", "1.9"], ["70", null]], "notes": "all good"}
        """#

    private func formBytes(_ sandbox: Sandbox, _ name: String) throws -> Data {
        try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
    }

    /// A new pump inspection named `name` with every question but the leaks and the photo answered.
    private func startForm(_ sandbox: Sandbox, _ name: String) throws {
        _ = try sandbox.newForm("pump-inspection", name: name)
        let file = sandbox.root.appendingPathComponent("answers-\(name).json")
        try Data(Self.otherAnswers.utf8).write(to: file)
        let answered = try sandbox.run(["answer", name, "--file", file.path])
        XCTAssertEqual(answered.status, 0, answered.output)
    }

    private func question(_ id: String, inReviewOf name: String, _ sandbox: Sandbox) throws -> [String: Any] {
        let review = try sandbox.run(["review", name, "--json"])
        XCTAssertEqual(review.status, 0, review.output)
        let questions = (try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])?["questions"] as? [[String: Any]]
        return try XCTUnwrap(questions?.first { $0["id"] as? String == id }, review.stdout)
    }

    func testNoneWithAPlaceThatLeaksIsRefusedWithTheConstraintMessageAndTheFormUnchanged() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("pump-inspection", name: "pump-1")
        XCTAssertEqual(try sandbox.run(["answer", name, "guard", "yes"]).status, 0)
        let before = try formBytes(sandbox, name)
        let answers = sandbox.root.appendingPathComponent("none-and-flange.json")
        try Data(#"{"leaks": ["None", "Suction flange"], "notes": "fine"}"#.utf8).write(to: answers)

        for arguments in [["answer", name, "leaks", "None, Casing drain"], ["answer", name, "leaks", "1,2"],
                          ["answer", name, "--file", answers.path]] {
            let refused = try sandbox.run(arguments)
            XCTAssertEqual(refused.status, 65, "\(arguments): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains("question leaks (2 of 9): \(Self.constraintMessage)"), "\(arguments): \(refused.stderr)")
            XCTAssertEqual(try formBytes(sandbox, name), before, "\(arguments) changed form.json")
        }
        // mi fill shows the message at once; piped input stops there, nothing saved.
        let filled = try sandbox.run(["fill", name], stdin: "1,3\n")
        XCTAssertNotEqual(filled.status, 0, filled.output)
        XCTAssertTrue(filled.output.contains(Self.constraintMessage), filled.output)
        XCTAssertEqual((try sandbox.formJSON(name)["answers"] as? [String: Any])?["leaks"] == nil, true, "no leaks answer saved")

        // None alone, and places without None, are answers.
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "None"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "Mechanical seal, Casing drain"]).status, 0)
        let leaks = try question("leaks", inReviewOf: name, sandbox)
        XCTAssertEqual(leaks["help"] as? String, "Choose every place with visible fluid or residue.", "the rule is no longer words in the help")
    }

    func testFillAsksForTheLeakPhotoOnlyWhenThereIsALeak() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let noise = "How does the pump sound while running?"

        _ = try sandbox.newForm("pump-inspection", name: "dry")
        let dry = try sandbox.run(["fill", "dry"], stdin: "yes\nNone\n:x\n")
        XCTAssertEqual(dry.status, 0, dry.output)
        let askedDry = String(dry.stdout.components(separatedBy: noise).first ?? "")
        XCTAssertTrue(dry.stdout.contains(noise), "the next question after None is the noise: \(dry.stdout)")
        XCTAssertFalse(askedDry.contains("Photo of each leak"), "no leak, no photo asked: \(askedDry)")
        XCTAssertFalse(dry.stdout.contains("Path of the photo file"), dry.stdout)
        XCTAssertEqual(try question("leak_photo", inReviewOf: "dry", sandbox)["relevantNow"] as? Bool, false)
        // Nor is a photo taken: the file is the answer, and the question takes none now.
        let before = try formBytes(sandbox, "dry")
        let refused = try sandbox.run(["answer", "dry", "leak_photo", Self.gauge.path])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("question leak_photo (3 of 9): the question is not relevant now"), refused.stderr)
        XCTAssertEqual(try formBytes(sandbox, "dry"), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder("dry").path), ["form.json"])

        _ = try sandbox.newForm("pump-inspection", name: "wet")
        let wet = try sandbox.run(["fill", "wet"], stdin: "yes\nMechanical seal, Casing drain\n\(Self.gauge.path)\n\n:x\n")
        XCTAssertEqual(wet.status, 0, wet.output)
        let askedWet = String(wet.stdout.components(separatedBy: noise).first ?? "")
        XCTAssertTrue(askedWet.contains("Photo of each leak"), "a leak: its photo is asked before the noise: \(wet.stdout)")
        XCTAssertTrue(askedWet.contains("Attached \(Self.gauge.path) as Qid2(1).jpg"), wet.stdout)
        XCTAssertTrue(wet.stdout.contains(noise), wet.stdout)
        let answers = try XCTUnwrap(try sandbox.formJSON("wet")["answers"] as? [String: [String: Any]])
        XCTAssertEqual(answers["leak_photo"]?["media"] as? [String], ["Qid2(1).jpg"])
        XCTAssertEqual(try question("leak_photo", inReviewOf: "wet", sandbox)["relevantNow"] as? Bool, true)
    }

    /// A photo taken while there was a leak, then the leak answered away: `mi submit` removes the
    /// photo with its file, and the audit trail says which question and why.
    func testALeakPhotoKeptAfterTheLeakIsAnsweredAwayIsClearedAtSubmit() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try startForm(sandbox, "pump-2")
        XCTAssertEqual(try sandbox.run(["answer", "pump-2", "leaks", "Suction flange"]).status, 0)
        let attached = try sandbox.run(["answer", "pump-2", "leak_photo", Self.gauge.path])
        XCTAssertEqual(attached.status, 0, attached.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("pump-2").appendingPathComponent("Qid2(1).jpg").path))
        XCTAssertEqual(try sandbox.run(["answer", "pump-2", "leaks", "None"]).status, 0)
        XCTAssertEqual(try question("leak_photo", inReviewOf: "pump-2", sandbox)["relevantNow"] as? Bool, false)

        let submitted = try sandbox.run(["submit", "pump-2"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let form = try sandbox.formJSON("pump-2", in: "CompletedMIs")
        let photo = (form["answers"] as? [String: [String: Any]])?["leak_photo"]
        XCTAssertTrue(photo == nil || (photo?["media"] as? [String])?.isEmpty == true, "\(String(describing: photo))")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder("pump-2", in: "CompletedMIs").path),
                       ["form.json"], "the photo's file is not submitted either")
        let audit = try XCTUnwrap(form["audit"] as? [[String: Any]])
        let cleared = try XCTUnwrap(audit.first { $0["action"] as? String == "cleared" }, "\(audit)")
        XCTAssertEqual(cleared["questions"] as? [String], ["leak_photo"])
        let note = cleared["note"] as? String ?? ""
        XCTAssertTrue(note.contains("not relevant at submission") && note.contains("Qid2(1).jpg"), note)
        XCTAssertEqual(audit.last?["action"] as? String, "submitted")
    }

    /// The shipped template, as the server serves it, makes forms that submit and upload: one
    /// with a leak and its photo (the photo stored by the server), one without a leak.
    func testTheShippedTemplateSubmitsAndUploadsToARealServer() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let templates = try sandbox.run(["templates"])
        XCTAssertEqual(templates.status, 0, templates.output)

        try startForm(sandbox, "leak-1")
        XCTAssertEqual(try sandbox.run(["answer", "leak-1", "leaks", "Mechanical seal"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "leak-1", "leak_photo", Self.gauge.path]).status, 0)
        let leakID = try XCTUnwrap(try sandbox.formJSON("leak-1")["id"] as? String).lowercased()
        try startForm(sandbox, "dry-1")
        XCTAssertEqual(try sandbox.run(["answer", "dry-1", "leaks", "None"]).status, 0)
        for name in ["leak-1", "dry-1"] {
            let submitted = try sandbox.run(["submit", name])
            XCTAssertEqual(submitted.status, 0, submitted.output)
        }

        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("Uploaded ana/leak-1 (2 parts, receipt verified)"), upload.stdout)
        XCTAssertTrue(upload.stdout.contains("Uploaded ana/dry-1 (1 parts, receipt verified)")
                      || upload.stdout.contains("Uploaded ana/dry-1 (1 part, receipt verified)"), upload.stdout)
        let stored = sandbox.root.appendingPathComponent("server-data/submissions/\(leakID)")
        XCTAssertEqual(try Data(contentsOf: stored.appendingPathComponent("Qid2(1).jpg")), try Data(contentsOf: Self.gauge))
        let storedForm = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: stored.appendingPathComponent("form.json"))) as? [String: Any])
        XCTAssertEqual(((storedForm["answers"] as? [String: [String: Any]])?["leak_photo"])?["media"] as? [String], ["Qid2(1).jpg"])
        XCTAssertEqual((storedForm["template"] as? [String: Any])?["version"] as? Int, 4)
        withExtendedLifetime(server) {}
    }
}
