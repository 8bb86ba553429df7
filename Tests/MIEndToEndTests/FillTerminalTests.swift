import Foundation
import XCTest

/// `mi fill` as a person types it (through a pseudo-terminal) and as a script pipes it, and
/// `mi answer` reading what `mi fill` reads: what is typed is what is saved.
final class FillTerminalTests: XCTestCase {
    private static let escape = "\u{1B}"
    private static let left = escape + "[D", up = escape + "[A", home = escape + "[H", end = escape + "[F"

    /// A template whose first question is a table of 2 × 4 = 8 value cells.
    private static let readingsTemplate = """
        {"id": "meter-readings", "title": "Meter readings", "version": 1, "questions": [
          {"id": "readings", "type": "table", "text": "Readings per shift",
           "rows": ["Pump A", "Pump B"], "columns": ["Early", "Day", "Late", "Night"]},
          {"id": "remarks", "type": "shortAnswer", "text": "Remarks"}
        ]}
        """

    /// Starts `mi ARGS` as ana with the pseudo-terminal as its controlling terminal (through
    /// `setsid --ctty`), so Ctrl-C typed as the byte 0x03 reaches it as SIGINT from the terminal
    /// driver, as it does for a person; `setsid --wait` passes on mi's exit status.
    private func startOnControllingTerminal(_ sandbox: Sandbox, _ arguments: [String]) throws -> (Process, PseudoTerminal) {
        try sandbox.ensureLoggedIn("ana")
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", "--ctty", Sandbox.binary.path] + arguments
        var environment = sandbox.environment(for: "ana")
        environment["TERM"] = "xterm"
        for name in ["LANG", "LC_ALL", "LC_CTYPE", "COLUMNS"] { environment[name] = nil }
        process.environment = environment
        process.currentDirectoryURL = sandbox.root
        try terminal.run(process)
        return (process, terminal)
    }

    /// Every question of the sample pump inspection answered by piped `mi fill`: 9 of 9 done
    /// (no leak, so the leak photo is not asked and not open), the bearings table (question 8)
    /// complete.
    private func completePumpInspection(_ sandbox: Sandbox) throws -> String {
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        let filled = try sandbox.run(["fill", name], stdin: "yes\n1\n1\n1,2\n5\n100\n61\n2.0\n58\n1.9\n65\nok\n\n")
        XCTAssertEqual(filled.status, 0, filled.output)
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 9)
        return name
    }

    private static let controlC = "\u{03}"

    func testControlCAtAQuestionExitsWith130AndKeepsTheAnswersBefore() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let (process, terminal) = try startOnControllingTerminal(sandbox, ["fill", name])
        XCTAssertTrue(terminal.waitFor("Location (building, floor, post)"), terminal.output)
        terminal.type("Hall B\r")
        XCTAssertTrue(terminal.waitFor("true/false > "), terminal.output)
        terminal.type("ye" + Self.controlC)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, terminal.output)
        XCTAssertTrue(terminal.output.contains("Interrupted. Saved \(name)"), terminal.output)
        let answers = try answers(sandbox, name)
        XCTAssertEqual(answers["location"]?["value"] as? String, "Hall B")
        XCTAssertNil(answers["pressure-ok"]?["value"], "a line not entered is not an answer")
    }

    func testControlCAtTheReviewExitsWith130() throws {
        let sandbox = try Sandbox()
        let name = try completePumpInspection(sandbox)
        let (process, terminal) = try startOnControllingTerminal(sandbox, ["fill", name])
        XCTAssertTrue(terminal.waitFor("Review: a question number"), terminal.output)
        terminal.type(Self.controlC)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, terminal.output)
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 9)
    }

    func testControlCWhileReEditingACompleteTableKeepsItComplete() throws {
        let sandbox = try Sandbox()
        let name = try completePumpInspection(sandbox)

        // Ctrl-C at the first cell, nothing typed: the table is as it was.
        var (process, terminal) = try startOnControllingTerminal(sandbox, ["fill", name])
        XCTAssertTrue(terminal.waitFor("Review: a question number"), terminal.output)
        terminal.type("8\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps the table, e edits it"), terminal.output)
        terminal.type("e\r")
        XCTAssertTrue(terminal.waitFor("Drive end · Temperature"), terminal.output)
        terminal.type(Self.controlC)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, terminal.output)
        XCTAssertFalse(terminal.output.contains("kept as a draft"), terminal.output)
        var bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertNil(bearings["draft"], "\(bearings)")
        XCTAssertEqual((bearings["value"] as? [[Any]])?.first as? [String], ["61", "2.0"])
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 9)

        // One cell changed, Ctrl-C at the next: the new table is complete, so it is the answer.
        (process, terminal) = try startOnControllingTerminal(sandbox, ["fill", name])
        XCTAssertTrue(terminal.waitFor("Review: a question number"), terminal.output)
        terminal.type("8\r")
        XCTAssertTrue(terminal.waitFor("Enter keeps the table, e edits it"), terminal.output)
        terminal.type("e\r")
        XCTAssertTrue(terminal.waitFor("Drive end · Temperature"), terminal.output)
        terminal.type("70\r")
        XCTAssertTrue(terminal.waitFor("Drive end · Vibration"), terminal.output)
        terminal.type("3." + Self.controlC)
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, terminal.output)
        bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertNil(bearings["draft"], "\(bearings)")
        XCTAssertEqual((bearings["value"] as? [[Any]])?.first as? [String], ["70", "2.0"])
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 9)

        let submitted = try sandbox.run(["submit", name])
        XCTAssertEqual(submitted.status, 0, submitted.output)
    }

    func testBackInsideATableGoesBackOneCell() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        // At the third cell, :b goes back to the second (its answer shown), which is typed again;
        // at the first cell :b goes back to question 7 (the hours).
        let result = try sandbox.run(["fill", name], stdin: "yes\n1\n1\n1,2\n5\n100\n61\n2.0\n:b\n2.5\n:b\n:b\n:b\n:x\n")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("Drive end · Vibration [2.0]: "), result.stdout)
        let questionSix = result.stdout.components(separatedBy: "Question 7 of 9").count - 1
        XCTAssertEqual(questionSix, 2, "the third :b leaves the table for question 7:\n\(result.stdout)")
        let bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertEqual((bearings["draft"] as? [[Any]])?.first as? [String], ["61", "2.5"])
    }

    func testSubmitRefusedForADraftSaysSo() throws {
        let sandbox = try Sandbox()
        let name = try completePumpInspection(sandbox)
        // A new value in the first cell, then :x: the table is complete, so it stays done.
        let edited = try sandbox.run(["fill", name], stdin: "8\ne\n62\n:x\n")
        XCTAssertEqual(edited.status, 0, edited.output)
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 9, edited.output)

        let other = try sandbox.newForm()
        let partly = try sandbox.run(["fill", other], stdin: "yes\n1\n1\n1,2\n5\n100\n61\n:c sensor loose\n:x\n")
        XCTAssertEqual(partly.status, 0, partly.output)
        XCTAssertEqual(try sandbox.run(["answer", other, "notes", "ok"]).status, 0)
        let refused = try sandbox.run(["submit", other])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("bearings (8) is a table still being typed (1 of 5 cells)"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("neither an answer nor a comment"), refused.stderr)
    }

    private func answers(_ sandbox: Sandbox, _ name: String) throws -> [String: [String: Any]] {
        try XCTUnwrap(try sandbox.formJSON(name)["answers"] as? [String: [String: Any]])
    }

    func testArrowKeysHomeEndControlKeysTabAndHistoryEditTheAnswer() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", name])

        // "wrld", three steps left, "o"; Home, "Hällo "; End, "!" → "Hällo world!".
        XCTAssertTrue(terminal.waitFor("Location (building, floor, post)"), terminal.output)
        terminal.type("wrld" + String(repeating: Self.left, count: 3) + "o" + Self.home + "Hällo " + Self.end + "!\r")
        // Ctrl-U throws away what is before the cursor.
        XCTAssertTrue(terminal.waitFor("true/false > "), terminal.output)
        terminal.type("maybe\u{15}yes\r")
        // Tab completes the option label.
        XCTAssertTrue(terminal.waitFor("Option number > "), terminal.output)
        terminal.type("bro\t\r")
        // A decimal comma is refused and asked again; Ctrl-W deletes the last word; Ctrl-A
        // goes to the start of the line.
        XCTAssertTrue(terminal.waitFor("Number > "), terminal.output)
        terminal.type("3,5\r")
        XCTAssertTrue(terminal.waitFor("use a dot: 3.5"), terminal.output)
        XCTAssertTrue(terminal.waitFor("Number > ", occurrence: 2), terminal.output)
        terminal.type(".5 99\u{17}\u{01}6\r")
        // At the review, question 4 reopens; ↑ twice recalls the answer before "4".
        XCTAssertTrue(terminal.waitFor("Review: a question number"), terminal.output)
        terminal.type("4\r")
        XCTAssertTrue(terminal.waitFor("Number > ", occurrence: 3), terminal.output)
        terminal.type(Self.up + Self.up + "\r")
        XCTAssertTrue(terminal.waitFor("Review: a question number", occurrence: 2), terminal.output)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)

        let answers = try answers(sandbox, name)
        XCTAssertEqual(answers["location"]?["value"] as? String, "Hällo world!")
        XCTAssertEqual(answers["pressure-ok"]?["value"] as? Bool, true)
        XCTAssertEqual(answers["seal"]?["value"] as? [String], ["Broken"])
        XCTAssertEqual(answers["weight"]?["value"] as? Double, 6.5)
        let file = try String(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"), encoding: .utf8)
        XCTAssertFalse(file.contains("\\u001b") || file.contains("[D"), "no escape sequence reaches form.json")
    }

    func testTableInterruptedAfterFourOfEightCellsResumesWithThem() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root.appendingPathComponent("meter-readings.json")
        try Data(Self.readingsTemplate.utf8).write(to: file)
        XCTAssertEqual(try sandbox.run(["templates", "import", file.path]).status, 0)
        let name = try sandbox.newForm("meter-readings")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", name])
        for (index, cell) in ["Pump A · Early", "Pump A · Day", "Pump A · Late", "Pump A · Night"].enumerated() {
            XCTAssertTrue(terminal.waitFor(cell + ": "), terminal.output)
            terminal.type("\(index + 10)\r")
        }
        XCTAssertTrue(terminal.waitFor("Pump B · Early: "), terminal.output)
        terminal.type("99")   // typed but not entered when Ctrl-C comes
        Thread.sleep(forTimeInterval: 0.2)
        process.interrupt()
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, terminal.output)
        XCTAssertTrue(terminal.output.contains("Interrupted. Saved \(name)"), terminal.output)

        let form = try sandbox.formJSON(name)
        XCTAssertEqual(form["answered"] as? Int, 0, "a partly typed table is not done")
        let readings = try XCTUnwrap((form["answers"] as? [String: [String: Any]])?["readings"])
        XCTAssertNil(readings["value"])
        let draft = try XCTUnwrap(readings["draft"] as? [[Any]])
        XCTAssertEqual(draft[0] as? [String], ["10", "11", "12", "13"])
        XCTAssertTrue(draft[1].allSatisfy { $0 is NSNull }, "\(draft)")

        let review = try sandbox.run(["review", name])
        XCTAssertTrue(review.stdout.contains("(draft, 4 cells typed — not done)"), review.stdout)
        let reviewJSON = try JSONSerialization.jsonObject(with: Data(try sandbox.run(["review", name, "--json"]).stdout.utf8)) as? [String: Any]
        let question = try XCTUnwrap((reviewJSON?["questions"] as? [[String: Any]])?.first { $0["id"] as? String == "readings" })
        XCTAssertEqual((question["draft"] as? [[Any]])?.first as? [String], ["10", "11", "12", "13"], "--json shows the draft")
        XCTAssertEqual(question["done"] as? Bool, false)
        XCTAssertTrue(review.stdout.contains("0 of 2 questions done"), review.stdout)
        let submit = try sandbox.run(["answer", name, "remarks", "none"])
        XCTAssertEqual(submit.status, 0, submit.output)
        let refused = try sandbox.run(["submit", name])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("readings (1)"), refused.stderr)

        // The next fill shows the four cells and asks only the other four.
        let resumed = try sandbox.run(["fill", name], stdin: "20\n21\n22\n23\n\n")
        XCTAssertEqual(resumed.status, 0, resumed.output)
        XCTAssertTrue(resumed.stdout.contains("Typed so far (a draft, 4 of 8 cells):"), resumed.stdout)
        XCTAssertTrue(resumed.stdout.contains("Pump A: Early 10, Day 11, Late 12, Night 13"), resumed.stdout)
        XCTAssertTrue(resumed.stdout.contains("Pump B: Early …"), resumed.stdout)
        XCTAssertFalse(resumed.stdout.contains("Pump A · Early"), "typed cells are not asked again:\n\(resumed.stdout)")
        let done = try XCTUnwrap(try answers(sandbox, name)["readings"])
        XCTAssertNil(done["draft"])
        let value = try XCTUnwrap(done["value"] as? [[String]])
        XCTAssertEqual(value, [["10", "11", "12", "13"], ["20", "21", "22", "23"]])
        XCTAssertEqual(try sandbox.formJSON(name)["answered"] as? Int, 2)
    }

    func testTableCellsSurviveExitAndBackAndCommentsAreKept() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        // To the table (question 8) with valid answers, two cells, :b back to question 7.
        let first = try sandbox.run(["fill", name], stdin: "yes\n1\n1\n1,2\n5\n100\n61\n2.0\n:b\n:x\n")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.stdout.contains("The table is kept as a draft (2 of 5 cells typed)"), first.stdout)
        var bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertEqual((bearings["draft"] as? [[Any]])?.first as? [String], ["61", "2.0"])

        // A comment typed in a table is saved at once; :x keeps the new cell too.
        let second = try sandbox.run(["fill", name], stdin: "58\n:c sensor loose\n:x\n")
        XCTAssertEqual(second.status, 0, second.output)
        bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertEqual(bearings["comment"] as? String, "sensor loose")
        XCTAssertEqual((bearings["draft"] as? [[Any]])?[1].first as? String, "58")

        // :b drops a pending comment and says so.
        let third = try sandbox.run(["fill", name], stdin: "1.9\n65\n:c later\n:b\n")
        XCTAssertTrue(third.stdout.contains("The comment was not saved (:b goes back without saving)."), third.stdout)
        bearings = try XCTUnwrap(try answers(sandbox, name)["bearings"])
        XCTAssertNil(bearings["draft"])
        XCTAssertEqual((bearings["value"] as? [[Any]])?[2].first as? String, "65")
        XCTAssertNil(try answers(sandbox, name)["notes"]?["comment"])
    }

    func testPipedFillStopsAtAnInvalidLineKeepingWhatCameBefore() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let result = try sandbox.run(["fill", name], stdin: "Hall B\n:c gauge cracked\nmaybe\nyes\n")
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("expected true or false (or yes/no), got \"maybe\""), result.stderr)
        XCTAssertFalse(result.stdout.contains("Question 3 of 4"), "the next line is not a retry:\n\(result.stdout)")
        let answers = try answers(sandbox, name)
        XCTAssertEqual(answers["location"]?["value"] as? String, "Hall B")
        XCTAssertNil(answers["pressure-ok"]?["value"])
        XCTAssertEqual(answers["pressure-ok"]?["comment"] as? String, "gauge cracked")

        // The comment made question 2 done, so fill goes on at 3, where Enter alone stops it.
        let next = try sandbox.run(["fill", name], stdin: "\n")
        XCTAssertEqual(next.status, 65, next.output)
        XCTAssertTrue(next.stdout.contains("Question 3 of 4"), next.stdout)
        XCTAssertTrue(next.stderr.contains("seal (3 of 4): answer the question or add a comment"), next.stderr)
    }

    func testAnswerAcceptsWhatFillAcceptsAndReadsTheAnswersFileFromStandardInput() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "3,4"]).status, 0)
        XCTAssertEqual(try answers(sandbox, name)["leaks"]?["value"] as? [String], ["Suction flange", "Discharge flange"])
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "2", "5"]).status, 0)
        XCTAssertEqual(try answers(sandbox, name)["leaks"]?["value"] as? [String], ["Mechanical seal", "Casing drain"])
        XCTAssertEqual(try sandbox.run(["answer", name, "leaks", "Mechanical seal, casing drain"]).status, 0)
        XCTAssertEqual(try answers(sandbox, name)["leaks"]?["value"] as? [String], ["Mechanical seal", "Casing drain"])
        let comma = try sandbox.run(["answer", name, "pressure", "3,5"])
        XCTAssertEqual(comma.status, 65, comma.output)
        XCTAssertTrue(comma.stderr.contains("use a dot: 3.5"), comma.stderr)

        for path in ["-", "/dev/stdin"] {
            let piped = try sandbox.run(["answer", name, "--file", path], stdin: #"{"pressure": 4.5, "noise": "Humming"}"#)
            XCTAssertEqual(piped.status, 0, "\(path): \(piped.output)")
            let answers = try answers(sandbox, name)
            XCTAssertEqual(answers["pressure"]?["value"] as? Double, 4.5)
            XCTAssertEqual(answers["noise"]?["value"] as? [String], ["Humming"])
            XCTAssertEqual(try sandbox.run(["answer", name, "pressure", "1"]).status, 0)
        }
        let broken = try sandbox.run(["answer", name, "--file", "-"], stdin: "{not json")
        XCTAssertEqual(broken.status, 65, broken.output)
        XCTAssertTrue(broken.stderr.contains("not valid JSON"), broken.stderr)
    }
}
