import Foundation
import XCTest

/// The foreman's desk end to end: queue, review, comments, send-back, reassignment, history.
final class ForemanTests: XCTestCase {
    static let extinguisherAnswers = #"{"location": "Hall B", "pressure-ok": true, "seal": ["Intact"], "weight": 6}"#

    func submitted(_ sandbox: Sandbox, as user: String, name: String) throws {
        let file = sandbox.root.appendingPathComponent("answers-\(name).json")
        try Data(Self.extinguisherAnswers.utf8).write(to: file)
        _ = try sandbox.newForm("extinguisher-check", as: user, name: name)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", file.path], as: user).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", name], as: user).status, 0)
    }

    func json(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
    }

    func testQueueReviewCommentReturnAndResubmit() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try submitted(sandbox, as: "ana", name: "hall-b")
        _ = try sandbox.newForm("pump-inspection", as: "bob", name: "pump-draft")

        let queue = try json(try sandbox.run(["queue", "--json"], as: "fiona"))
        let completed = try XCTUnwrap(queue["completed"] as? [[String: Any]])
        let incomplete = try XCTUnwrap(queue["incomplete"] as? [[String: Any]])
        XCTAssertEqual(completed.map { "\($0["user"] ?? "")/\($0["name"] ?? "")" }, ["ana/hall-b"])
        XCTAssertEqual(completed.first?["answeredCount"] as? Int, 4)
        XCTAssertEqual(incomplete.map { "\($0["user"] ?? "")/\($0["name"] ?? "")" }, ["bob/pump-draft"])
        XCTAssertEqual(incomplete.first?["daysLeft"] as? Int, 7)
        let filtered = try json(try sandbox.run(["queue", "--json", "--user", "bob"], as: "fiona"))
        XCTAssertEqual((filtered["completed"] as? [Any])?.count, 0)
        let byTemplate = try json(try sandbox.run(["queue", "--json", "--template", "pump-inspection"], as: "fiona"))
        XCTAssertEqual((byTemplate["incomplete"] as? [Any])?.count, 1)
        XCTAssertEqual((byTemplate["completed"] as? [Any])?.count, 0)
        let table = try sandbox.run(["queue"], as: "fiona")
        XCTAssertTrue(table.stdout.contains("Waiting for review (1)") && table.stdout.contains("hall-b"), table.stdout)

        // The foreman reviews the technician's form and comments on it, in order.
        let review = try sandbox.run(["review", "ana/hall-b"], as: "fiona")
        XCTAssertEqual(review.status, 0, review.output)
        XCTAssertTrue(review.stdout.contains("Hall B"), review.stdout)
        XCTAssertEqual(try sandbox.run(["comment", "hall-b", "Seal photo missing"], as: "fiona").status, 0)
        XCTAssertEqual(try sandbox.run(["comment", "hall-b", "Weight looks low"], as: "fiona").status, 0)
        let commented = try sandbox.formJSON("hall-b", in: "CompletedMIs")
        let comments = try XCTUnwrap(commented["foremanComments"] as? [[String: Any]])
        XCTAssertEqual(comments.map { $0["text"] as? String }, ["Seal photo missing", "Weight looks low"])
        XCTAssertEqual(comments.first?["by"] as? String, "fiona")

        // Sent back with a note: back in ana's incomplete forms, expiry restarted.
        let sent = try sandbox.run(["return", "hall-b", "--note", "Attach a photo of the seal"], as: "fiona")
        XCTAssertEqual(sent.status, 0, sent.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("hall-b", in: "CompletedMIs").path))
        let returned = try sandbox.formJSON("hall-b")
        XCTAssertEqual(returned["status"] as? String, "incomplete")
        XCTAssertNotNil(returned["returnedAt"])

        // The technician sees the note at login (once) and in the review, corrects, resubmits.
        let login = try Sandbox.execute(Sandbox.binary, ["login", "--user", "ana", "--password-stdin"], stdin: "ana-password\n",
                                        environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertTrue(login.stdout.contains("form hall-b was sent back by fiona: Attach a photo of the seal"), login.stdout)
        let mine = try sandbox.run(["review", "hall-b"], as: "ana")
        XCTAssertTrue(mine.stdout.contains("Sent back") && mine.stdout.contains("Attach a photo of the seal"), mine.stdout)
        XCTAssertTrue(mine.stdout.contains("Seal photo missing"), "the foreman's comments stay with the form: \(mine.stdout)")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        XCTAssertEqual(try sandbox.run(["attach", "hall-b", "seal", photo], as: "ana").status, 0)
        XCTAssertEqual(try sandbox.run(["submit", "hall-b"], as: "ana").status, 0)

        let history = try sandbox.run(["review", "ana/hall-b", "--history"], as: "fiona")
        let order = ["created from template", "answered", "submitted by ana", "commented by fiona", "sent back by fiona",
                     "attached", "submitted by ana"]
        var position = history.stdout.startIndex
        for action in order {
            let found = try XCTUnwrap(history.stdout.range(of: "  \(action)", range: position..<history.stdout.endIndex),
                                      "\(action) missing in order in\n\(history.stdout)")
            position = found.upperBound
        }
        XCTAssertTrue(history.stdout.contains("sent back by fiona: “Attach a photo of the seal”"), history.stdout)
    }

    func testReassignmentMovesTheFormRenamesOnCollisionAndTellsTheOldTechnicianOnce() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        _ = try sandbox.newForm("extinguisher-check", as: "bob", name: "post-4")
        _ = try sandbox.newForm("extinguisher-check", as: "ana", name: "post-4")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        XCTAssertEqual(try sandbox.run(["answer", "post-4", "location", "Hall C"], as: "bob").status, 0)
        XCTAssertEqual(try sandbox.run(["attach", "post-4", "location", photo], as: "bob").status, 0)
        let before = try Data(contentsOf: sandbox.formFolder("post-4", user: "bob").appendingPathComponent("Qid0(1).jpg"))

        let assigned = try sandbox.run(["assign", "bob/post-4", "--to", "ana"], as: "fiona")
        XCTAssertEqual(assigned.status, 0, assigned.output)
        XCTAssertTrue(assigned.stdout.contains("as post-4-2"), assigned.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("post-4", user: "bob").path))
        let moved = sandbox.formFolder("post-4-2", user: "ana")
        XCTAssertEqual(try Data(contentsOf: moved.appendingPathComponent("Qid0(1).jpg")), before)
        let form = try sandbox.formJSON("post-4-2")
        XCTAssertEqual(form["user"] as? String, "ana")
        XCTAssertEqual(form["name"] as? String, "post-4-2")
        XCTAssertEqual(((form["answers"] as? [String: [String: Any]])?["location"])?["value"] as? String, "Hall C")
        let audit = try XCTUnwrap(form["audit"] as? [[String: Any]])
        XCTAssertTrue(audit.contains { $0["action"] as? String == "assigned" && $0["from"] as? String == "bob"
                                       && $0["to"] as? String == "ana" && $0["by"] as? String == "fiona" }, "\(audit)")
        // ana's own post-4 is untouched.
        XCTAssertEqual(try sandbox.formJSON("post-4")["user"] as? String, "ana")
        // The new owner can go on with it.
        XCTAssertEqual(try sandbox.run(["answer", "post-4-2", "weight", "5"], as: "ana").status, 0)

        let first = try Sandbox.execute(Sandbox.binary, ["login", "--user", "bob", "--password-stdin"], stdin: "bob-password\n",
                                        environment: sandbox.environment(for: "bob"), in: sandbox.root)
        XCTAssertTrue(first.stdout.contains("form post-4 was reassigned to ana by fiona"), first.stdout)
        let second = try Sandbox.execute(Sandbox.binary, ["login", "--user", "bob", "--password-stdin"], stdin: "bob-password\n",
                                         environment: sandbox.environment(for: "bob"), in: sandbox.root)
        XCTAssertFalse(second.stdout.contains("reassigned"), second.stdout)
        // The new owner is told as well, once.
        let told = try Sandbox.execute(Sandbox.binary, ["login", "--user", "ana", "--password-stdin"], stdin: "ana-password\n",
                                       environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertEqual(told.status, 0, told.output)
        XCTAssertTrue(told.stdout.contains("form post-4-2 was assigned to you by fiona (it was bob's post-4)"), told.stdout)
        let toldAgain = try Sandbox.execute(Sandbox.binary, ["login", "--user", "ana", "--password-stdin"], stdin: "ana-password\n",
                                            environment: sandbox.environment(for: "ana"), in: sandbox.root)
        XCTAssertFalse(toldAgain.stdout.contains("assigned to you"), toldAgain.stdout)
    }

    func testRefusedReassignmentsMoveNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        _ = try sandbox.newForm("extinguisher-check", as: "bob", name: "draft")
        try submitted(sandbox, as: "bob", name: "done")
        let snapshot = sandbox.allFormFiles()
        let cases: [([String], String, Int32)] = [
            (["assign", "bob/draft", "--to", "nobody-here"], "there is no user nobody-here in the directory", 66),
            (["assign", "bob/draft", "--to", "fiona"], "fiona is a foreman", 65),
            (["assign", "bob/draft", "--to", "bob"], "already belongs to bob", 65),
            (["assign", "bob/done", "--to", "ana"], "only incomplete forms can be reassigned", 65),
            (["assign", "bob/draft", "--to", "../ana"], "is not a valid user name", 65),
            (["assign", "bob/missing", "--to", "ana"], "no form", 66),
            (["comment", "bob/draft", "hello"], "only completed forms can be commented on", 65),
            (["return", "bob/draft", "--note", "x"], "only completed forms can be sent back", 65),
        ]
        for (arguments, expected, status) in cases {
            let result = try sandbox.run(arguments, as: "fiona")
            XCTAssertEqual(result.status, status, "\(arguments): «\(result.stderr)»")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): «\(result.stderr)»")
            XCTAssertEqual(sandbox.allFormFiles(), snapshot, "\(arguments) moved something")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.documents.appendingPathComponent("Errors/bob.json").path))
    }

    func testATechnicianCannotUseAnyForemanCommand() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try submitted(sandbox, as: "bob", name: "done")
        _ = try sandbox.newForm("extinguisher-check", as: "bob", name: "draft")
        let snapshot = sandbox.allFormFiles()
        for arguments in [["queue"], ["users"], ["comment", "bob/done", "x"], ["return", "bob/done", "--note", "x"],
                          ["assign", "bob/draft", "--to", "ana"], ["comment", "done", "x"]] {
            let result = try sandbox.run(arguments, as: "ana")
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("this command is for foremen"), "\(arguments): \(result.stderr)")
        }
        // Nor see another technician's forms.
        let review = try sandbox.run(["review", "done"], as: "ana")
        XCTAssertNotEqual(review.status, 0)
        XCTAssertTrue(review.stderr.contains("no form"), review.stderr)
        XCTAssertEqual(sandbox.allFormFiles(), snapshot)
    }

    func testTwoForemenReassigningTheSameFormAtOnceExactlyOneWins() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try sandbox.ensureLoggedIn("fiona")
        for round in 0..<5 {
            let name = "contested-\(round)"
            _ = try sandbox.newForm("extinguisher-check", as: "bob", name: name)
            // Two processes started together; the store's lock makes them take turns.
            let processes = try ["ana", "carla"].map { target in
                (target, try sandbox.start(["assign", "bob/\(name)", "--to", target], as: "fiona"))
            }
            var statuses: [String: Int32] = [:]
            for (target, process) in processes {
                process.waitUntilExit()
                statuses[target] = process.terminationStatus
            }
            XCTAssertEqual(statuses.values.filter { $0 == 0 }.count, 1, "round \(round): \(statuses)")
            let places = sandbox.allFormFiles().filter { $0.contains("/\(name)/") }
            XCTAssertEqual(places.count, 1, "round \(round): \(places)")
            let winner = try XCTUnwrap(statuses.first { $0.value == 0 }?.key)
            XCTAssertEqual(places.first, "Users/\(winner)/\(name)/form.json")
            XCTAssertEqual(try sandbox.formJSON(name, user: winner)["user"] as? String, winner)
        }
    }

    /// Forms rewritten by another JSON tool (python3's json.tool: 4-space indents, spaces after
    /// the colons, non-ASCII escaped, and with --sort-keys the summary's keys spread among the
    /// others) are listed exactly as before: same queue, same table, same technician listing.
    func testQueueListsFormsRewrittenByAnotherJSONTool() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try sandbox.importSamples(as: "bob")
        try submitted(sandbox, as: "ana", name: "hall-b")
        try submitted(sandbox, as: "bob", name: "prüfstand-ü")
        try submitted(sandbox, as: "ana", name: "sent-back")
        XCTAssertEqual(try sandbox.run(["return", "ana/sent-back", "--note", "Bitte das Siegel prüfen"], as: "fiona").status, 0)
        _ = try sandbox.newForm("pump-inspection", as: "bob", name: "pump-draft")
        _ = try sandbox.newForm("extinguisher-check", as: "ana", name: "draft-é")
        XCTAssertEqual(try sandbox.run(["answer", "draft-é", "location", "Halle Süd"], as: "ana").status, 0)

        func outputs() throws -> [String] {
            let commands: [([String], String)] = [
                (["queue", "--json"], "fiona"), (["queue"], "fiona"), (["queue", "--json", "--user", "bob"], "fiona"),
                (["queue", "--json", "--template", "extinguisher-check"], "fiona"), (["list", "--json"], "ana"),
            ]
            return try commands.map { arguments, user in
                let result = try sandbox.run(arguments, as: user)
                XCTAssertEqual(result.status, 0, result.output)
                XCTAssertEqual(result.stderr, "", "nothing skipped or repaired: \(result.stderr)")
                return result.stdout
            }
        }
        let before = try outputs()
        let queue = try json(try sandbox.run(["queue", "--json"], as: "fiona"))
        XCTAssertEqual((queue["completed"] as? [Any])?.count, 2, before[0])
        XCTAssertEqual((queue["incomplete"] as? [Any])?.count, 3, before[0])

        let files = sandbox.allFormFiles()
        XCTAssertEqual(files.count, 5)
        for options in [[], ["--sort-keys"]] {
            for file in files {
                let path = sandbox.documents.appendingPathComponent(file).path
                let rewritten = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                                                    ["python3", "-m", "json.tool"] + options + [path, path + ".new"])
                XCTAssertEqual(rewritten.status, 0, rewritten.output)
                XCTAssertEqual(rename(path + ".new", path), 0)
                let text = try String(contentsOfFile: path, encoding: .utf8)
                XCTAssertTrue(text.contains("\n    \"id\": \""), "rewritten in the other tool's layout: \(text.prefix(200))")
            }
            XCTAssertEqual(try outputs(), before, "options \(options)")
        }
    }
}
