import Foundation
import XCTest

/// The technician's job end to end, through the real `mi` binary.
final class TechnicianFlowTests: XCTestCase {
    func testWholeFlowWithFillDrivenThroughStdin() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let templates = try sandbox.run(["templates", "--offline"])
        XCTAssertEqual(templates.status, 0, templates.output)
        XCTAssertTrue(templates.stdout.contains("pump-inspection"), templates.stdout)

        let name = try sandbox.newForm()
        XCTAssertTrue(name.hasPrefix("pump-inspection-"), name)

        // Question by question: help, the leak's photo (asked because there is a leak), Back
        // (not saved), the table cell by cell (the motor's vibration cell is skipped), a
        // comment, then the review, where question 4 is reopened and changed, and finally :s
        // submits. (Piped input stops at an invalid line: see FillTerminalTests; on a terminal it
        // is asked again.)
        let photo = sandbox.repository.appendingPathComponent("Samples/media/seal.png").path
        let script = [
            "?",            // 1 guard: help
            "yes",          //   saved → 2
            "2,5",          // 2 leaks: any number (None only alone) → 3
            photo,          // 3 leak_photo: asked because there is a leak; attached
            "",             //   Enter: one photo is enough → 4
            ":b",           // 4 noise: back to 3 without saving anything on 4
            "",             // 3 leak_photo: keep → 4
            "2",            // 4 noise: Humming → 5
            "1 3",          // 5 checks: up to 2 → 6
            "12.5",         // 6 pressure → 7
            "1200",         // 7 hours → 8
            "60", "2.1",    // 8 bearings: drive end
            "58", "1.9",    //   non-drive end
            "65",           //   motor temperature (vibration takes no value)
            ":c all good",  // 9 notes: comment only
            "",             //   next with only a comment → review
            "4",            // review: reopen question 4
            "Grinding",     //   by label → back to review
            ":s",           // submit
        ].joined(separator: "\n") + "\n"
        let fill = try sandbox.run(["fill", name], stdin: script)
        XCTAssertEqual(fill.status, 0, fill.output)
        XCTAssertTrue(fill.stdout.contains("Help: Check all four bolts"), fill.stdout)
        XCTAssertFalse(fill.stdout.contains("Motor · Vibration"), "the no-value cell must be skipped")
        XCTAssertTrue(fill.stdout.contains("Submitted \(name)"), fill.stdout)

        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name).path))
        let form = try sandbox.formJSON(name, in: "CompletedMIs")
        XCTAssertEqual(form["status"] as? String, "completed")
        let answers = try XCTUnwrap(form["answers"] as? [String: [String: Any]])
        XCTAssertEqual(answers["guard"]?["value"] as? Bool, true)
        XCTAssertEqual(answers["leaks"]?["value"] as? [String], ["Mechanical seal", "Casing drain"])
        XCTAssertEqual(answers["leak_photo"]?["media"] as? [String], ["Qid2(1).png"])
        XCTAssertTrue(fill.stdout.contains("Photo of each leak"), fill.stdout)
        XCTAssertEqual(answers["noise"]?["value"] as? [String], ["Grinding"])
        XCTAssertEqual(answers["checks"]?["value"] as? [String], ["Alignment", "Vibration"])
        XCTAssertEqual(answers["pressure"]?["value"] as? Double, 12.5)
        XCTAssertEqual(answers["hours"]?["value"] as? Double, 1200)
        let table = try XCTUnwrap(answers["bearings"]?["value"] as? [[Any]])
        XCTAssertEqual(table[0] as? [String], ["60", "2.1"])
        XCTAssertTrue(table[2][1] is NSNull, "\(table)")
        XCTAssertEqual(answers["notes"]?["comment"] as? String, "all good")
        XCTAssertNil(answers["notes"]?["value"])

        let list = try sandbox.run(["list", "--json"])
        let listed = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["forms"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(listed.first?["status"] as? String, "completed")
        XCTAssertEqual(listed.first?["answeredCount"] as? Int, 9)
    }

    func testSaveAndExitKeepsTheFormAndAQuestionNeedsAnAnswerOrAComment() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let first = try sandbox.run(["fill", name], stdin: "Hall B, floor 2\n:x\n")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.stdout.contains("Continue with: mi fill \(name)"), first.stdout)
        let saved = try sandbox.formJSON(name)
        XCTAssertEqual((saved["answers"] as? [String: [String: Any]])?["location"]?["value"] as? String, "Hall B, floor 2")

        // The next fill starts at the first open question; end of input saves and exits.
        let second = try sandbox.run(["fill", name], stdin: "no\n")
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.stdout.contains("Question 2 of 4"), second.stdout)
        let form = try sandbox.formJSON(name)
        XCTAssertEqual((form["answers"] as? [String: [String: Any]])?["pressure-ok"]?["value"] as? Bool, false)
        XCTAssertEqual(form["answered"] as? Int, 2)

        // Enter alone at an open question: piped, fill stops there (on a terminal it asks again).
        let third = try sandbox.run(["fill", name], stdin: "\n")
        XCTAssertEqual(third.status, 65, third.output)
        XCTAssertTrue(third.stderr.contains("answer the question or add a comment"), third.stderr)
    }

    func testAnswerAttachReviewSubmit() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        let answers = sandbox.root.appendingPathComponent("answers.json")
        try Data("""
            {"guard": true, "leaks": ["None"], "noise": "Normal", "checks": ["Lubrication", "Vibration"],
             "pressure": 9.5, "hours": 3400, "bearings": [["61", "2.0"], ["59", "1.8"], ["66", null]],
             "notes": {"value": "Replaced the guard bolt", "comment": "spare bolts low"}}
            """.utf8).write(to: answers)
        let answered = try sandbox.run(["answer", name, "--file", answers.path])
        XCTAssertEqual(answered.status, 0, answered.output)

        let photo = sandbox.root.appendingPathComponent("gauge.JPG")
        try Data(repeating: 0xAB, count: 300_000).write(to: photo)
        let movie = sandbox.root.appendingPathComponent("noise.mp4")
        try Data(repeating: 0x01, count: 5_000).write(to: movie)
        XCTAssertEqual(try sandbox.run(["attach", name, "leaks", photo.path]).status, 0)
        XCTAssertEqual(try sandbox.run(["attach", name, "leaks", photo.path]).status, 0)
        let attached = try sandbox.run(["attach", name, "2", movie.path])
        XCTAssertEqual(attached.status, 0, attached.output)
        XCTAssertTrue(attached.stdout.contains("Qid1(3).mp4"), attached.stdout)
        let copied = try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("Qid1(1).jpg"))
        XCTAssertEqual(copied, try Data(contentsOf: photo))

        let media = try sandbox.run(["media", name])
        XCTAssertTrue(media.stdout.contains("Qid1(1).jpg") && media.stdout.contains("Qid1(3).mp4"), media.stdout)
        let detached = try sandbox.run(["detach", name, "Qid1(2).jpg"])
        XCTAssertEqual(detached.status, 0, detached.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name).appendingPathComponent("Qid1(2).jpg").path))

        let review = try sandbox.run(["review", name, "--history"])
        XCTAssertEqual(review.status, 0, review.output)
        for text in ["Where do you see leaks?", "Replaced the guard bolt", "spare bolts low", "Qid1(1).jpg (photo, 293.0 KiB)",
                     "Drive end: Temperature 61, Vibration 2.0", "Motor: Temperature 66, Vibration ■", "attached Qid1(3).mp4 to leaks by ana",
                     "detached Qid1(2).jpg from leaks by ana", "9 of 9 questions done"] {
            XCTAssertTrue(review.stdout.contains(text), "missing \(text) in\n\(review.stdout)")
        }

        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let folder = sandbox.formFolder(name, in: "CompletedMIs")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Qid1(1).jpg").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Qid1(3).mp4").path))
        let again = try sandbox.run(["answer", name, "guard", "false"])
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("can no longer be changed"), again.stderr)
    }

    func testSubmitRefusedWhileAQuestionIsOpen() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        XCTAssertEqual(try sandbox.run(["answer", name, "location", "Hall", "B"]).status, 0)
        let before = try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
        let result = try sandbox.run(["submit", name])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pressure-ok (2), seal (3), weight (4)"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json")), before)
        XCTAssertEqual(try sandbox.run(["delete", name]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder(name).path))
    }

    func testJSONOutputIsOneDocument() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let created = try sandbox.run(["new", "extinguisher-check", "--name", "hall-b", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["name"] as? String, "hall-b")
        XCTAssertNotNil(UUID(uuidString: object["id"] as? String ?? ""))
        let review = try sandbox.run(["review", "hall-b", "--json"])
        let form = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((form["questions"] as? [Any])?.count, 4)
        // The id prefix resolves too.
        let prefix = String((object["id"] as? String ?? "").prefix(8))
        XCTAssertEqual(try sandbox.run(["review", prefix]).status, 0)
    }
}
