import Foundation
import XCTest

/// A FORM as a person types it: the exact name, the name in another case, the start of the name
/// or of the id; a typo gets the closest names, an ambiguous start the forms it matches. And a
/// mistyped command gets the closest command.
final class FindingFormsTests: XCTestCase {
    private func makeForms(_ sandbox: Sandbox, as user: String = "ana") throws {
        for name in ["neg-test", "Pump P-101 north", "pump-inspection-2"] {
            _ = try sandbox.newForm("extinguisher-check", as: user, name: name)
        }
    }

    private func error(_ result: RunResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any]
        return try XCTUnwrap(object?["error"] as? [String: Any], result.output)
    }

    func testATypoSuggestsTheClosestNames() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try makeForms(sandbox)
        let typo = try sandbox.run(["review", "neg-tst"])
        XCTAssertEqual(typo.status, 66, typo.output)
        XCTAssertTrue(typo.stderr.contains("no form \"neg-tst\" for ana — did you mean 'neg-test'?"), typo.stderr)

        let json = try sandbox.run(["review", "pump-inspectoin-2", "--json"])
        XCTAssertEqual(json.status, 66, json.output)
        XCTAssertEqual(try error(json)["code"] as? String, "form-not-found")
        XCTAssertTrue((try error(json)["message"] as? String)?.contains("did you mean 'pump-inspection-2'?") == true, json.stderr)

        // A name with a space is suggested as it is typed in a shell.
        let spaced = try sandbox.run(["review", "Pump P-100 north"])
        XCTAssertEqual(spaced.status, 66, spaced.output)
        XCTAssertTrue(spaced.stderr.contains("did you mean 'Pump P-101 north'?"), spaced.stderr)

        let nothingClose = try sandbox.run(["review", "boiler"])
        XCTAssertEqual(nothingClose.status, 66, nothingClose.output)
        XCTAssertFalse(nothingClose.stderr.contains("did you mean"), nothingClose.stderr)
    }

    func testAnUnambiguousStartOrAnotherCaseFindsTheForm() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try makeForms(sandbox)
        for reference in ["neg", "NEG-TEST", "Neg-T", "pump p", "pump-i"] {
            let result = try sandbox.run(["review", reference, "--json"])
            XCTAssertEqual(result.status, 0, "\(reference): \(result.output)")
            let name = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["name"] as? String
            XCTAssertEqual(name, reference.lowercased().hasPrefix("neg") ? "neg-test"
                                 : reference == "pump p" ? "Pump P-101 north" : "pump-inspection-2", reference)
        }
        // Every command that takes a FORM finds it the same way.
        let answered = try sandbox.run(["answer", "neg", "location", "Hall B"])
        XCTAssertEqual(answered.status, 0, answered.output)
        XCTAssertEqual((try sandbox.formJSON("neg-test")["answers"] as? [String: [String: Any]])?["location"]?["value"] as? String, "Hall B")
    }

    func testAnAmbiguousStartNamesTheFormsItMatches() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try makeForms(sandbox)
        let result = try sandbox.run(["review", "pump"])
        XCTAssertEqual(result.status, 64, result.output)
        XCTAssertTrue(result.stderr.contains("\"pump\" matches 2 forms: 'Pump P-101 north', pump-inspection-2"), result.stderr)
        let deleted = try sandbox.run(["delete", "pump"])
        XCTAssertEqual(deleted.status, 64, deleted.output)
        XCTAssertEqual(sandbox.allFormFiles().count, 3, "nothing was deleted")
    }

    func testAForemanFindsAnyonesFormTheSameWay() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        try makeForms(sandbox)
        let typo = try sandbox.run(["review", "neg-tst"], as: "fiona")
        XCTAssertEqual(typo.status, 66, typo.output)
        XCTAssertTrue(typo.stderr.contains("did you mean 'ana/neg-test'?"), typo.stderr)
        let qualified = try sandbox.run(["review", "ana/neg-tst"], as: "fiona")
        XCTAssertEqual(qualified.status, 66, qualified.output)
        XCTAssertTrue(qualified.stderr.contains("did you mean 'ana/neg-test'?"), qualified.stderr)
        let prefix = try sandbox.run(["review", "ana/neg"], as: "fiona")
        XCTAssertEqual(prefix.status, 0, prefix.output)
        XCTAssertTrue(prefix.stdout.contains("neg-test"), prefix.stdout)
        let anywhere = try sandbox.run(["review", "NEG"], as: "fiona")
        XCTAssertEqual(anywhere.status, 0, anywhere.output)
        let ambiguous = try sandbox.run(["review", "pump"], as: "fiona")
        XCTAssertEqual(ambiguous.status, 64, ambiguous.output)
        XCTAssertTrue(ambiguous.stderr.contains("'ana/Pump P-101 north', ana/pump-inspection-2"), ambiguous.stderr)
    }

    func testAMistypedCommandSuggestsTheClosestOne() throws {
        let sandbox = try Sandbox()
        for (typed, meant) in [("fil", "fill"), ("reveiw", "review"), ("templtes", "templates")] {
            let result = try sandbox.run([typed, "x"], as: nil)
            XCTAssertEqual(result.status, 64, result.output)
            XCTAssertTrue(result.stderr.contains("unknown command '\(typed)' — did you mean '\(meant)'?"), result.stderr)
        }
        let json = try sandbox.run(["fil", "--json"], as: nil)
        XCTAssertEqual(json.status, 64, json.output)
        XCTAssertTrue((try error(json)["message"] as? String)?.contains("did you mean 'fill'?") == true, json.stderr)
        let unknown = try sandbox.run(["xyzzy"], as: nil)
        XCTAssertEqual(unknown.status, 64, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("unknown command 'xyzzy'") && unknown.stderr.contains("mi help"), unknown.stderr)
    }
}
