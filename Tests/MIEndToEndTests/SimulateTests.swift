import Foundation
import XCTest

/// `mi simulate` through the real binary: reproducible from a seed, and every form it makes
/// passes `mi submit`'s checks.
final class SimulateTests: XCTestCase {
    private func answers(_ sandbox: Sandbox, _ name: String) throws -> NSDictionary {
        try XCTUnwrap(try sandbox.formJSON(name, in: "CompletedMIs")["answers"] as? NSDictionary, name)
    }

    func testTheSameSeedInTwoStoresGivesTheSameAnswersAndEveryFormPassesSubmit() throws {
        // Store A: incomplete forms, each submitted with the real `mi submit`.
        let first = try Sandbox()
        try first.importSamples()
        let made = try first.run(["simulate", "pump-inspection", "--count", "20", "--seed", "7"])
        XCTAssertEqual(made.status, 0, made.output)
        XCTAssertTrue(made.stdout.contains("Simulated 20 forms of pump-inspection (sim-7-1 … sim-7-20), incomplete, from seed 7"), made.stdout)
        for n in 1...20 {
            let submitted = try first.run(["submit", "sim-7-\(n)"])
            XCTAssertEqual(submitted.status, 0, "sim-7-\(n): \(submitted.output)")
        }

        // Store B: the same seed with --submit.
        let second = try Sandbox()
        try second.importSamples()
        let json = try second.run(["simulate", "pump-inspection", "--count", "20", "--seed", "7", "--submit", "--json"])
        XCTAssertEqual(json.status, 0, json.output)
        let output = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(output["seed"] as? Int, 7)
        let forms = try XCTUnwrap(output["forms"] as? [[String: Any]])
        XCTAssertEqual(forms.map { $0["name"] as? String }, (1...20).map { "sim-7-\($0)" })
        XCTAssertTrue(forms.allSatisfy { $0["status"] as? String == "completed" })

        for n in 1...20 {
            let name = "sim-7-\(n)"
            XCTAssertEqual(try answers(first, name), try answers(second, name), "\(name): the same seed, the same answers")
            let form = try second.formJSON(name, in: "CompletedMIs")
            let actions = (form["audit"] as? [[String: Any]])?.compactMap { $0["action"] as? String }
            XCTAssertEqual(actions, ["created", "simulated", "answered", "submitted"], name)
        }
        XCTAssertEqual(first.allFormFiles().filter { $0.hasPrefix("Users/") }, [], "all of store A's forms were submitted")

        // Submitted forms spread over the last 30 days.
        let formatter = ISO8601DateFormatter()
        let days = Set(try (1...20).map { n -> String in
            let submitted = try XCTUnwrap(try second.formJSON("sim-7-\(n)", in: "CompletedMIs")["submittedAt"] as? String)
            let date = try XCTUnwrap(formatter.date(from: submitted), submitted)
            XCTAssertGreaterThan(date, Date().addingTimeInterval(-31 * 86_400))
            return String(submitted.prefix(10))
        })
        XCTAssertGreaterThan(days.count, 5, "forms on many days: \(days.sorted())")

        // The review says what they are.
        let review = try second.run(["review", "sim-7-1"])
        XCTAssertEqual(review.status, 0, review.output)
        XCTAssertTrue(review.stdout.contains("Simulated form (mi simulate) — not a real inspection"), review.stdout)
    }

    func testADifferentSeedGivesDifferentAnswersAndNoSeedPrintsTheOneChosen() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        XCTAssertEqual(try sandbox.run(["simulate", "pump-inspection", "--count", "3", "--seed", "1", "--submit"]).status, 0)
        XCTAssertEqual(try sandbox.run(["simulate", "pump-inspection", "--count", "3", "--seed", "2", "--submit"]).status, 0)
        XCTAssertNotEqual(try answers(sandbox, "sim-1-1"), try answers(sandbox, "sim-2-1"))

        let unseeded = try sandbox.run(["simulate", "pump-inspection", "--count", "1"])
        XCTAssertEqual(unseeded.status, 0, unseeded.output)
        XCTAssertTrue(unseeded.stdout.contains("Repeat them with: mi simulate pump-inspection --count 1 --seed "), unseeded.stdout)
    }

    /// `mi upload --all` leaves simulated forms out with one line (and a count in --json) instead
    /// of failing on each; `mi purge --simulated` deletes a technician's own, incomplete and
    /// completed, and a foreman's of everyone.
    func testUploadAllSkipsSimulatedFormsAndPurgeSimulatedRemovesThem() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let real = try ServerTests.completedForm(sandbox, name: "hall-b")
        XCTAssertEqual(try sandbox.run(["simulate", "extinguisher-check", "--count", "3", "--seed", "1", "--submit"]).status, 0)
        XCTAssertEqual(try sandbox.run(["simulate", "extinguisher-check", "--count", "2", "--seed", "2"]).status, 0)
        XCTAssertEqual(try sandbox.run(["simulate", "extinguisher-check", "--count", "2", "--seed", "3", "--submit"], as: "bob").status, 0)

        let upload = try sandbox.run(["upload", "--all"], as: "fiona")
        XCTAssertEqual(upload.status, 0, upload.output)
        XCTAssertTrue(upload.stdout.contains("Skipped 5 simulated forms (made by mi simulate; mi-server refuses them)"), upload.stdout)
        XCTAssertTrue(upload.stdout.contains("Uploaded ana/\(real)"), upload.stdout)
        XCTAssertFalse(upload.stderr.contains("not uploaded"), upload.stderr)
        let again = try sandbox.run(["upload", "--all", "--json"], as: "fiona")
        XCTAssertEqual(again.status, 0, again.output)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], again.stdout)
        XCTAssertEqual(summary["skippedSimulatedCount"] as? Int, 5)
        XCTAssertEqual(summary["failedCount"] as? Int, 0)
        XCTAssertEqual((summary["forms"] as? [Any])?.count, 0)

        // ana's own five go, incomplete and completed; bob's two stay.
        let dry = try sandbox.run(["purge", "--simulated", "--dry-run", "--json"])
        XCTAssertEqual(dry.status, 0, dry.output)
        let planned = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any], dry.stdout)
        let plannedForms = try XCTUnwrap(planned["forms"] as? [[String: Any]])
        XCTAssertEqual(Set(plannedForms.compactMap { $0["name"] as? String }), ["sim-1-1", "sim-1-2", "sim-1-3", "sim-2-1", "sim-2-2"])
        XCTAssertEqual(Set(plannedForms.compactMap { $0["status"] as? String }), ["incomplete", "completed"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("sim-2-1").path), "a dry run deletes nothing")
        let purged = try sandbox.run(["purge", "--simulated"])
        XCTAssertEqual(purged.status, 0, purged.output)
        XCTAssertTrue(purged.stdout.contains("Deleted 5 simulated forms of yours"), purged.stdout)
        XCTAssertEqual(sandbox.allFormFiles().filter { $0.contains("sim-") }.sorted(),
                       ["CompletedMIs/bob/sim-3-1/form.json", "CompletedMIs/bob/sim-3-2/form.json"])

        let foreman = try sandbox.run(["purge", "--simulated"], as: "fiona")
        XCTAssertEqual(foreman.status, 0, foreman.output)
        XCTAssertTrue(foreman.stdout.contains("Deleted 2 simulated forms"), foreman.stdout)
        XCTAssertEqual(sandbox.allFormFiles().filter { $0.contains("sim-") }, [])
        let nothing = try sandbox.run(["purge", "--simulated"], as: "fiona")
        XCTAssertTrue(nothing.stdout.contains("No simulated form to delete."), nothing.stdout)
        withExtendedLifetime(server) {}
    }

    func testBadRequestsChangeNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        for count in ["0", "10001"] {
            let refused = try sandbox.run(["simulate", "pump-inspection", "--count", count, "--seed", "3"])
            XCTAssertEqual(refused.status, 64, refused.output)
            XCTAssertTrue(refused.stderr.contains("--count must be from 1 to 10,000"), refused.stderr)
        }
        let unknown = try sandbox.run(["simulate", "no-such-template", "--count", "2", "--seed", "3"])
        XCTAssertEqual(unknown.status, 66, unknown.output)
        XCTAssertEqual(sandbox.allFormFiles(), [])

        XCTAssertEqual(try sandbox.run(["simulate", "pump-inspection", "--count", "2", "--seed", "3"]).status, 0)
        let again = try sandbox.run(["simulate", "pump-inspection", "--count", "2", "--seed", "3"])
        XCTAssertEqual(again.status, 64, again.output)
        XCTAssertTrue(again.stderr.contains("sim-3-1"), again.stderr)
        XCTAssertEqual(sandbox.allFormFiles().count, 2)
    }
}

/// Simulated forms and the real mi-server: refused by default, kept locally; accepted when
/// Server.AcceptSimulated is true.
final class SimulatedUploadTests: XCTestCase {
    func testTheServerRefusesSimulatedFormsUntilAcceptSimulatedIsSet() throws {
        let sandbox = try Sandbox()
        try ServerTests.prepare(sandbox)
        var server = try RunningServer(sandbox)
        XCTAssertEqual(try sandbox.run(["templates"]).status, 0)
        let made = try sandbox.run(["simulate", "pump-inspection", "--count", "2", "--seed", "5", "--submit"])
        XCTAssertEqual(made.status, 0, made.output)
        try sandbox.ensureLoggedIn("fiona")

        let refused = try sandbox.run(["upload", "ana/sim-5-1"], as: "fiona")
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertTrue(refused.stderr.contains("was not uploaded and is kept"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("simulated"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("set Server.AcceptSimulated to true"), refused.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.formFolder("sim-5-1", in: "CompletedMIs").path))
        let submissions = sandbox.root.appendingPathComponent("server-data/submissions")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: submissions.path))?.count ?? 0, 0)

        server.kill9()
        let text = try String(contentsOf: sandbox.config, encoding: .utf8)
            .replacingOccurrences(of: "<key>DataDirectory</key>", with: "<key>AcceptSimulated</key><true/><key>DataDirectory</key>")
        try Data(text.utf8).write(to: sandbox.config)
        server = try RunningServer(sandbox)
        let accepted = try sandbox.run(["upload", "ana/sim-5-1"], as: "fiona")
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.formFolder("sim-5-1", in: "CompletedMIs").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: submissions.path).count, 1)
        withExtendedLifetime(server) {}
    }
}
