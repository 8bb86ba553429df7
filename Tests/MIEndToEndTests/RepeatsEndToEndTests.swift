import Foundation
import XCTest

/// Groups and repeats (issue 24 items 3 and 5) through the real `mi` and mi-server: answers by
/// path (`pumps[2]/amps`) with their refusals leaving form.json untouched, instances of an open
/// repeat added in order and removed with their media, `mi review` nesting instances, `mi fill`
/// on a terminal walking counted and open repeats, and `mi simulate` forms that pass `mi submit`
/// and the server's upload.
final class RepeatsEndToEndTests: XCTestCase {
    /// A count from an answer, a constraint inside the repeat, an open repeat nested in it, a
    /// calculation summing over the instances, a group that is relevant only on an answer.
    static let template = #"""
        {"id": "station", "title": "Pump station", "version": 1, "questions": [
          {"id": "site", "type": "shortAnswer", "text": "Site name"},
          {"id": "npumps", "type": "numeric", "text": "How many pumps?", "integer": true, "min": 1, "max": 3},
          {"id": "pumps", "type": "repeat", "text": "Pump", "repeatCount": "${npumps}", "questions": [
            {"id": "amps", "type": "numeric", "text": "Current (A)", "min": 0, "max": 60,
             "constraint": ". <= 40", "constraintMessage": "At most 40 A"},
            {"id": "kw", "type": "numeric", "text": "Power (kW)", "min": 0, "max": 50},
            {"id": "seals", "type": "repeat", "text": "Seal", "questions": [
              {"id": "leak", "type": "trueFalse", "text": "Does the seal leak?"},
              {"id": "photo", "type": "photo", "text": "Photo of the seal", "required": false}
            ]}
          ]},
          {"id": "total", "type": "calculate", "text": "Total kW", "calculation": "sum(${kw})"},
          {"id": "outdoor", "type": "trueFalse", "text": "Is there a yard?"},
          {"id": "yard", "type": "group", "text": "Yard", "relevant": "${outdoor} = 'true'", "questions": [
            {"id": "fence", "type": "shortAnswer", "text": "Fence state"}
          ]}
        ]}
        """#

    private func prepare(_ sandbox: Sandbox) throws -> RunningServer {
        try ServerTests.prepare(sandbox)
        try Data(Self.template.utf8).write(to: sandbox.root.appendingPathComponent("server-templates/station.json"))
        let server = try RunningServer(sandbox)
        let templates = try sandbox.run(["templates"])
        XCTAssertEqual(templates.status, 0, templates.output)
        return server
    }

    private func formFile(_ sandbox: Sandbox, _ name: String) -> URL {
        sandbox.formFolder(name).appendingPathComponent("form.json")
    }

    private func answers(_ sandbox: Sandbox, _ name: String, in area: String = "Users") throws -> [String: [String: Any]] {
        try XCTUnwrap(try sandbox.formJSON(name, in: area)["answers"] as? [String: [String: Any]])
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testAnswerByPathRefusalsRemoveWithMediaReviewNestingAndUpload() throws {
        let sandbox = try Sandbox()
        let server = try prepare(sandbox)
        _ = try sandbox.newForm("station", name: "f1")
        XCTAssertEqual(try sandbox.run(["answer", "f1", "npumps", "2"]).status, 0)
        let first = try sandbox.run(["answer", "f1", "pumps[1]/amps", "12"])
        XCTAssertEqual(first.status, 0, first.output)

        // Refusals: each exits as `mi answer`'s refusals do and leaves form.json byte for byte.
        let before = try Data(contentsOf: formFile(sandbox, "f1"))
        let refusals: [(arguments: [String], says: String)] = [
            (["pumps[2]/amps", "45"], "At most 40 A"),
            (["pumps[3]/amps", "5"], "pumps has 2 instances (its count is ${npumps})"),
            (["pumps[1]/nosuch", "5"], "no such question"),
            (["wells[1]/amps", "5"], "stands in the repeat pumps"),
            (["amps", "5"], "name its instance, as in pumps[1]/amps"),
            (["pumps[1]/seals[2]/leak", "yes"], "pumps[1]/seals has 0 instances; pumps[1]/seals[1] adds the next"),
            (["pumps[1]/total", "3"], "total stands in no repeat"),
            (["pumps", "--remove", "1"], "its number of instances is its count"),
            (["pumps[1]/seals", "--remove", "1"], "pumps[1]/seals has no instance"),
            (["site", "--remove", "1"], "not a repeat of template station"),
        ]
        for refusal in refusals {
            let result = try sandbox.run(["answer", "f1"] + refusal.arguments)
            XCTAssertEqual(result.status, 65, "\(refusal.arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(refusal.says), "\(refusal.arguments): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: formFile(sandbox, "f1")), before, "\(refusal.arguments): form.json unchanged")
        }

        // The calculation sums over the instances.
        XCTAssertEqual(try sandbox.run(["answer", "f1", "pumps[2]/amps", "20"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f1", "pumps[1]/kw", "5"]).status, 0)
        XCTAssertEqual(try sandbox.run(["answer", "f1", "pumps[2]/kw", "7.5"]).status, 0)
        XCTAssertEqual(try answers(sandbox, "f1")["total"]?["value"] as? String, "12.5")

        // An answers file keyed by paths adds the instances of an open repeat in order (2 before 10).
        var entries = (1...10).map { "\"pumps[1]/seals[\($0)]/leak\": \($0 == 2 ? "true" : "false")" }
        entries.append("\"site\": \"Hall B\"")
        let file = sandbox.root.appendingPathComponent("seals.json")
        try Data("{\(entries.joined(separator: ", "))}".utf8).write(to: file)
        let filed = try sandbox.run(["answer", "f1", "--file", file.path])
        XCTAssertEqual(filed.status, 0, filed.output)
        XCTAssertEqual(try sandbox.formJSON("f1")["repeats"] as? [String: Int], ["pumps[1]/seals": 10])

        // A photo of seal 1, then seal 1 removed: its answers and its photo go, seal 2 becomes seal 1.
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let attached = try sandbox.run(["attach", "f1", "pumps[1]/seals[1]/photo", photo])
        XCTAssertEqual(attached.status, 0, attached.output)
        let media = try XCTUnwrap(try answers(sandbox, "f1")["pumps[1]/seals[1]/photo"]?["media"] as? [String])
        XCTAssertEqual(media.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("f1").appendingPathComponent(media[0]).path))
        let removed = try sandbox.run(["answer", "f1", "pumps[1]/seals", "--remove", "1"])
        XCTAssertEqual(removed.status, 0, removed.output)
        XCTAssertTrue(removed.stdout.contains("Removed pumps[1]/seals[1] from f1 with 1 answer and 1 media file (\(media[0]))"), removed.stdout)
        XCTAssertTrue(removed.stdout.contains("pumps[1]/seals has 9 instances now; the later instances moved up one"), removed.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("f1").appendingPathComponent(media[0]).path), "the photo is deleted")
        let after = try answers(sandbox, "f1")
        XCTAssertEqual(after["pumps[1]/seals[1]/leak"]?["value"] as? Bool, true, "seal 2 moved up to seal 1")
        XCTAssertNil(after["pumps[1]/seals[10]/leak"])
        XCTAssertEqual(try sandbox.formJSON("f1")["repeats"] as? [String: Int], ["pumps[1]/seals": 9])
        let audit = try XCTUnwrap(try sandbox.formJSON("f1")["audit"] as? [[String: Any]])
        XCTAssertEqual(audit.last?["action"] as? String, "removed")

        // mi review --json nests: the repeat is an array of instances, each answer keeps its path.
        let review = try sandbox.run(["review", "f1", "--json"])
        XCTAssertEqual(review.status, 0, review.output)
        let items = try XCTUnwrap(try json(review.stdout)["questions"] as? [[String: Any]])
        XCTAssertEqual(items.map { ($0["path"] as? String) ?? ($0["id"] as? String) ?? "?" },
                       ["site", "npumps", "pumps", "total", "outdoor", "yard"])
        let pumps = try XCTUnwrap(items.first { $0["id"] as? String == "pumps" })
        XCTAssertEqual(pumps["type"] as? String, "repeat")
        let instances = try XCTUnwrap(pumps["instances"] as? [[String: Any]])
        XCTAssertEqual(instances.map { $0["path"] as? String }, ["pumps[1]", "pumps[2]"])
        let inFirst = try XCTUnwrap(instances[0]["questions"] as? [[String: Any]])
        XCTAssertEqual(inFirst.first?["path"] as? String, "pumps[1]/amps")
        XCTAssertEqual(inFirst.first?["value"] as? Double, 12)
        let seals = try XCTUnwrap(inFirst.first { $0["type"] as? String == "repeat" })
        XCTAssertEqual(seals["path"] as? String, "pumps[1]/seals")
        XCTAssertEqual((seals["instances"] as? [[String: Any]])?.count, 9)
        let yard = try XCTUnwrap(items.last)
        XCTAssertEqual(yard["type"] as? String, "group")
        XCTAssertEqual(yard["relevantNow"] as? Bool, false, "no yard answered yet: \(yard)")
        XCTAssertEqual(try sandbox.run(["answer", "f1", "outdoor", "yes"]).status, 0)
        let relevant = try json(try sandbox.run(["review", "f1", "--json"]).stdout)["questions"] as? [[String: Any]]
        XCTAssertEqual(relevant?.last?["relevantNow"] as? Bool, true)
        XCTAssertEqual(try sandbox.run(["answer", "f1", "outdoor", "no"]).status, 0)
        let text = try sandbox.run(["review", "f1"])
        XCTAssertTrue(text.stdout.contains("▸ Pump 2 of 2"), text.stdout)
        XCTAssertTrue(text.stdout.contains("▸ Seal 9"), text.stdout)
        XCTAssertTrue(text.stdout.contains("[pumps[1]/seals[9]/leak]"), text.stdout)
        XCTAssertTrue(text.stdout.contains("▸ Yard (not relevant — not submitted)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("— (not relevant — not submitted)"), text.stdout)
        let relevantAgain = try json(try sandbox.run(["review", "f1", "--json"]).stdout)["questions"] as? [[String: Any]]
        XCTAssertEqual(relevantAgain?.last?["relevantNow"] as? Bool, false)
        XCTAssertEqual(((relevantAgain?.last?["questions"] as? [[String: Any]])?.first)?["relevantNow"] as? Bool, false)

        // Submitted and uploaded to the real server, media of instances included.
        let photoOfSeal = try sandbox.run(["attach", "f1", "pumps[2]/seals[1]/photo", photo])
        XCTAssertEqual(photoOfSeal.status, 0, photoOfSeal.output)
        XCTAssertEqual(try sandbox.run(["answer", "f1", "pumps[2]/seals[1]/leak", "no"]).status, 0)
        let submitted = try sandbox.run(["submit", "f1"])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let uploaded = try sandbox.run(["upload", "ana/f1"], as: "fiona")
        XCTAssertEqual(uploaded.status, 0, uploaded.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("f1", in: "CompletedMIs").path), "uploaded and removed")
        withExtendedLifetime(server) {}
    }

    /// `mi fill` on a terminal: the count typed makes two pump instances ("Pump 1 of 2"), the
    /// constraint inside the repeat speaks at once, the open repeat asks "Add a Seal?" and
    /// "Add another Seal?", the yard's group follows its answer, and the sum is computed.
    func testFillOnATerminalWalksCountedAndOpenRepeats() throws {
        let sandbox = try Sandbox()
        let server = try prepare(sandbox)
        _ = try sandbox.newForm("station", name: "t1")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", "t1"], plainLocale: false)
        func answer(_ waitFor: String, _ typed: String) {
            XCTAssertTrue(terminal.waitFor(waitFor), "waiting for \(waitFor): \(terminal.output)")
            terminal.type(typed + "\r")
        }
        answer("Site name", "Hall B")
        answer("How many pumps?", "2")
        answer("▸ Pump 1 of 2", "45")
        XCTAssertTrue(terminal.waitFor("At most 40 A — try again"), terminal.output)
        terminal.type("12\r")
        answer("[pumps[1]/kw]", "5")
        answer("Add a Seal? (y/n)", "y")
        answer("[pumps[1]/seals[1]/leak]", "no")
        answer("[pumps[1]/seals[1]/photo]", "")
        answer("Add another Seal? (y/n)", "y")
        answer("[pumps[1]/seals[2]/leak]", "yes")
        answer("[pumps[1]/seals[2]/photo]", "")
        answer("Add another Seal? (y/n)", "n")
        answer("▸ Pump 2 of 2", "20")
        answer("[pumps[2]/kw]", "7.5")
        answer("Add a Seal? (y/n)", "n")
        answer("Is there a yard?", "yes")
        answer("▸ Yard", "intact")
        XCTAssertTrue(terminal.waitFor("Review:"), terminal.output)
        XCTAssertTrue(terminal.output.contains("12.5"), "the total in the review: \(terminal.output)")
        terminal.type(":s\r")
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)
        let saved = try answers(sandbox, "t1", in: "CompletedMIs")
        XCTAssertEqual(saved["pumps[1]/amps"]?["value"] as? Double, 12)
        XCTAssertEqual(saved["pumps[2]/kw"]?["value"] as? Double, 7.5)
        XCTAssertEqual(saved["pumps[1]/seals[2]/leak"]?["value"] as? Bool, true)
        XCTAssertEqual(saved["total"]?["value"] as? String, "12.5")
        XCTAssertEqual(saved["fence"]?["value"] as? String, "intact")
        XCTAssertEqual(try sandbox.formJSON("t1", in: "CompletedMIs")["repeats"] as? [String: Int], ["pumps[1]/seals": 2])
        withExtendedLifetime(server) {}
    }

    /// Piped `mi fill`: a count changed on the way is followed at once (back to the count, one
    /// pump instead of two), the yard is not asked without one, and no seal is added.
    func testPipedFillFollowsACountChangedOnTheWay() throws {
        let sandbox = try Sandbox()
        let server = try prepare(sandbox)
        _ = try sandbox.newForm("station", name: "p1")
        let filled = try sandbox.run(["fill", "p1"], stdin: "Hall C\n2\n:b\n1\n10\n2\nn\nno\n:s\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        let asked = String(filled.stdout.components(separatedBy: "questions done").first ?? "")
        XCTAssertTrue(asked.contains("[pumps[1]/amps]"), asked)
        let afterBack = String(asked.components(separatedBy: "Pump 1 of 2").dropFirst().joined())
        XCTAssertTrue(afterBack.contains("Pump 1 of 1"), "back to the count, then one pump: \(asked)")
        XCTAssertFalse(asked.contains("pumps[2]"), "one pump only: \(asked)")
        XCTAssertFalse(asked.contains("Fence state"), "the yard is not relevant: \(asked)")
        let saved = try answers(sandbox, "p1", in: "CompletedMIs")
        XCTAssertEqual(saved["total"]?["value"] as? String, "2")
        XCTAssertNil(try sandbox.formJSON("p1", in: "CompletedMIs")["repeats"])
        withExtendedLifetime(server) {}
    }

    /// `mi simulate`: counts honoured, open repeats given 1–3 instances, only relevant questions,
    /// constraints met; every form passes `mi submit` and the real server's upload.
    func testSimulatedFormsWithRepeatsSubmitAndUpload() throws {
        let sandbox = try Sandbox()
        var server = try prepare(sandbox)
        let count = 12
        let simulated = try sandbox.run(["simulate", "station", "--count", String(count), "--seed", "11", "--submit"])
        XCTAssertEqual(simulated.status, 0, simulated.output)
        var sealCounts: Set<Int> = []
        for n in 1...count {
            let name = "sim-11-\(n)"
            let form = try sandbox.formJSON(name, in: "CompletedMIs")
            let answers = try XCTUnwrap(form["answers"] as? [String: [String: Any]], name)
            let pumps = try XCTUnwrap(answers["npumps"]?["value"] as? Double, "\(name): \(answers)")
            var total = 0.0
            for pump in 1...3 {
                let amps = answers["pumps[\(pump)]/amps"]?["value"] as? Double
                if pump > Int(pumps) { XCTAssertNil(answers["pumps[\(pump)]/amps"], "\(name): only \(pumps) pumps"); continue }
                if let amps { XCTAssertLessThanOrEqual(amps, 40, "\(name): the constraint is met") }
                // A power left with a comment is '' to the sum, which makes it NaN (as in XPath).
                total += answers["pumps[\(pump)]/kw"]?["value"] as? Double ?? .nan
                let seals = (form["repeats"] as? [String: Int])?["pumps[\(pump)]/seals"] ?? 0
                XCTAssertTrue((1...3).contains(seals), "\(name): an open repeat gets 1 to 3 instances, got \(seals)")
                sealCounts.insert(seals)
            }
            let computed = try XCTUnwrap(Double(answers["total"]?["value"] as? String ?? ""), "\(name): \(answers["total"] ?? [:])")
            if total.isNaN { XCTAssertTrue(computed.isNaN, name) } else { XCTAssertEqual(computed, total, accuracy: 1e-9, name) }
            if answers["outdoor"]?["value"] as? Bool != true {
                XCTAssertNil(answers["fence"]?["value"], "\(name): the yard is not relevant, so not answered")
            }
        }
        XCTAssertGreaterThan(sealCounts.count, 1, "different seal counts across forms: \(sealCounts)")

        // The server judges them again and accepts every one (once it accepts simulated forms).
        server.kill9()
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: "<key>DataDirectory</key>", with: "<key>AcceptSimulated</key><true/><key>DataDirectory</key>")
        try Data(text.utf8).write(to: sandbox.config)
        server = try RunningServer(sandbox)
        for n in 1...count {
            let uploaded = try sandbox.run(["upload", "ana/sim-11-\(n)"], as: "fiona")
            XCTAssertEqual(uploaded.status, 0, "sim-11-\(n): \(uploaded.output)")
        }
        let submissions = sandbox.root.appendingPathComponent("server-data/submissions")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: submissions.path).count, count)
        withExtendedLifetime(server) {}
    }
}
