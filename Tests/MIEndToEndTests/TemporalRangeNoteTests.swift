import Foundation
import TestSupport
import XCTest

/// The `date`, `time`, `dateTime`, `range` and `note` types through the real `mi` (answer,
/// review and its JSON, fill on a pseudo-terminal, print, stats, export, simulate), the real
/// mi-server (upload, search) and the office in chromium (the submission and statistics pages).
final class TemporalRangeNoteTests: XCTestCase {
    static let template = #"""
        {"id": "hydrant", "title": "Hydrant check", "version": 1, "questions": [
          {"id": "intro", "type": "note", "text": "Open the cap slowly and stand clear of the outlet."},
          {"id": "serviced", "type": "date", "text": "Date of the last service", "min": "2000-01-01"},
          {"id": "arrived", "type": "time", "text": "Arrival time"},
          {"id": "tested", "type": "dateTime", "text": "Flow test started"},
          {"id": "flow", "type": "range", "text": "Flow rating", "start": 1, "end": 5, "step": 1},
          {"id": "remarks", "type": "shortAnswer", "text": "Remarks"}
        ]}
        """#
    /// The zone the forms are started in: `today`, `now` and a typed date and time are read there.
    static let zone = "America/Mexico_City"

    /// A sandbox with the template in the server's folder and in ana's and fiona's caches.
    func hydrantSandbox(server: Bool = false) throws -> (Sandbox, RunningServer?) {
        let sandbox = try Sandbox()
        let folder = sandbox.root.appendingPathComponent("server-templates")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.template.utf8).write(to: folder.appendingPathComponent("hydrant.json"))
        var running: RunningServer?
        if server {
            running = try RunningServer(sandbox)
            for user in ["ana", "fiona"] {
                let templates = try sandbox.run(["templates"], as: user)
                XCTAssertEqual(templates.status, 0, templates.output)
            }
        } else {
            let imported = try sandbox.run(["templates", "import", folder.path], as: "ana")
            XCTAssertEqual(imported.status, 0, imported.output)
        }
        return (sandbox, running)
    }

    /// `mi new hydrant` in the test zone.
    func newHydrant(_ sandbox: Sandbox, name: String) throws {
        let made = try sandbox.run(["new", "hydrant", "--name", name], environment: ["TZ": Self.zone])
        XCTAssertEqual(made.status, 0, made.output)
    }

    func formBytes(_ sandbox: Sandbox, _ name: String) throws -> Data {
        try Data(contentsOf: sandbox.formFolder(name).appendingPathComponent("form.json"))
    }

    func answers(_ sandbox: Sandbox, _ name: String, in area: String = "Users") throws -> [String: [String: Any]] {
        (try sandbox.formJSON(name, in: area)["answers"] as? [String: [String: Any]]) ?? [:]
    }

    /// Today's date in the test zone.
    static func today() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .current
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    // MARK: - mi answer, review, print; bad values

    func testEveryTypeIsAnsweredReviewedAndPrintedAndBadValuesChangeNothing() throws {
        let (sandbox, _) = try hydrantSandbox()
        try newHydrant(sandbox, name: "h-1")

        // Bad values of every type: exit 65, one message naming the question, form.json unchanged.
        let before = try formBytes(sandbox, "h-1")
        let bad: [(question: String, words: [String], says: String)] = [
            ("serviced", ["2026-02-30"], "2026-02-30 does not exist"),
            ("serviced", ["03/04/2026"], "write the date as YYYY-MM-DD"),
            ("serviced", ["1999-12-31"], "before the earliest allowed date, 2000-01-01"),
            ("arrived", ["25:00"], "there is no hour 25"),
            ("arrived", ["2:30", "pm"], "use the 24-hour clock — write 14:30"),
            ("tested", ["2026-11-26T25:00"], "there is no hour 25"),
            ("tested", ["26/11/2026", "14:30"], "MI does not read day/month orders — write the date as YYYY-MM-DD (2026-11-26)"),
            ("flow", ["2.5"], "the nearest allowed values are 2 and 3"),
            ("flow", ["6"], "outside the range 1 to 5"),
            ("intro", ["seen"], "this is a note: it shows text and takes no answer"),
        ]
        for case let (question, words, says) in bad {
            let refused = try sandbox.run(["answer", "h-1", question] + words)
            XCTAssertEqual(refused.status, 65, "\(question) \(words): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains("question \(question) (") && refused.stderr.contains(says),
                          "\(question) \(words): \(refused.stderr)")
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, "one message: \(refused.stderr)")
            XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "\(question) \(words) changed form.json")
        }
        let comment = try sandbox.run(["answer", "h-1", "intro", "--comment", "read it"])
        XCTAssertEqual(comment.status, 65, comment.output)
        XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "a comment on a note changed form.json")
        let photo = sandbox.repository.appendingPathComponent("Samples/media/gauge.jpg").path
        let attached = try sandbox.run(["attach", "h-1", "intro", photo])
        XCTAssertEqual(attached.status, 65, attached.output)
        XCTAssertTrue(attached.stderr.contains("question intro (1 of 6): this is a note"), attached.stderr)
        XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "a file attached to a note changed form.json")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: sandbox.formFolder("h-1").path), ["form.json"])
        let file = sandbox.root.appendingPathComponent("bad.json")
        try Data(#"{"flow": 3, "serviced": "2026-13-01"}"#.utf8).write(to: file)
        let badFile = try sandbox.run(["answer", "h-1", "--file", file.path])
        XCTAssertEqual(badFile.status, 65, badFile.output)
        XCTAssertTrue(badFile.stderr.contains("question serviced ("), badFile.stderr)
        XCTAssertEqual(try formBytes(sandbox, "h-1"), before, "an answers file with one bad value saves nothing")

        // Good values, typed as a technician types them.
        for (question, words) in [("serviced", ["2026-11-20"]), ("arrived", ["9:05"]), ("tested", ["2026-11-26T14:30"]),
                                  ("flow", ["4"])] {
            let saved = try sandbox.run(["answer", "h-1", question] + words)
            XCTAssertEqual(saved.status, 0, saved.output)
        }
        let last = try sandbox.run(["answer", "h-1", "remarks", "Outlet", "cap", "seized"])
        XCTAssertTrue(last.stdout.contains("(5 of 5 questions done)"), "the note is not counted: \(last.output)")
        let stored = try answers(sandbox, "h-1")
        XCTAssertEqual(stored["serviced"]?["value"] as? String, "2026-11-20")
        XCTAssertEqual(stored["arrived"]?["value"] as? String, "09:05")
        XCTAssertEqual(stored["tested"]?["value"] as? String, "2026-11-26T14:30:00-06:00", "the offset of the form's zone")
        XCTAssertEqual(stored["flow"]?["value"] as? Double, 4)
        XCTAssertNil(stored["intro"])

        // today and now, in the form's zone (the machine running mi is in UTC here).
        let today = Self.today()
        XCTAssertEqual(try sandbox.run(["answer", "h-1", "serviced", "today"], environment: ["TZ": "Asia/Tokyo"]).status, 0)
        XCTAssertEqual(try answers(sandbox, "h-1")["serviced"]?["value"] as? String, today)
        XCTAssertEqual(try sandbox.run(["answer", "h-1", "tested", "now"]).status, 0)
        let now = try XCTUnwrap(try answers(sandbox, "h-1")["tested"]?["value"] as? String)
        XCTAssertTrue(now.hasSuffix("-06:00") || now.hasSuffix("-05:00"), now)
        XCTAssertEqual(try sandbox.run(["answer", "h-1", "serviced", "2026-11-20", "--comment", "per the tag"]).status, 0)

        let review = try sandbox.run(["review", "h-1", "--json"])
        XCTAssertEqual(review.status, 0, review.output)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(review.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["questionCount"] as? Int, 5, "the note is not a question to answer")
        XCTAssertEqual(object["answeredCount"] as? Int, 5)
        let questions = try XCTUnwrap(object["questions"] as? [[String: Any]])
        XCTAssertEqual(questions.map { $0["type"] as? String }, ["note", "date", "time", "dateTime", "range", "shortAnswer"])
        XCTAssertEqual(questions[0]["done"] as? Bool, true, "a note is never open")
        XCTAssertNil(questions[0]["value"])
        XCTAssertEqual(questions[1]["value"] as? String, "2026-11-20")
        XCTAssertEqual(questions[1]["min"] as? String, "2000-01-01", "the date's settings, as ISO text")
        XCTAssertEqual([questions[4]["start"], questions[4]["end"], questions[4]["step"]].map { $0 as? Double }, [1, 5, 1])
        XCTAssertEqual(questions[4]["value"] as? Double, 4)

        let text = try sandbox.run(["review", "h-1"])
        XCTAssertTrue(text.stdout.contains("5 of 5 questions done"), text.stdout)
        XCTAssertTrue(text.stdout.contains("(note)"), text.stdout)
        XCTAssertFalse(text.stdout.contains("(open)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("2026-11-20") && text.stdout.contains("09:05"), text.stdout)

        let pdf = sandbox.root.appendingPathComponent("h-1.pdf")
        let printed = try sandbox.run(["print", "h-1", "--output", pdf.path])
        XCTAssertEqual(printed.status, 0, printed.output)
        let pages = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/pdftotext"), ["-layout", "-enc", "UTF-8", pdf.path, "-"])
        for expected in ["Open the cap slowly", "2026-11-20", "09:05", "range from 1 to 5 in steps of 1"] {
            XCTAssertTrue(pages.contains(expected), "the PDF shows \(expected): \(pages)")
        }
        XCTAssertFalse(pages.contains("no answer"), "a note has no answer line: \(pages)")

        let list = try sandbox.run(["list", "--json"])
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any], list.output)
        let row = try XCTUnwrap((listed["forms"] as? [[String: Any]])?.first { $0["name"] as? String == "h-1" }, list.stdout)
        XCTAssertEqual(row["answeredCount"] as? Int, 5)
        XCTAssertEqual(row["questionCount"] as? Int, 5, "mi list does not count the note")

        let submitted = try sandbox.run(["submit", "h-1"])
        XCTAssertEqual(submitted.status, 0, "a form with an unanswered note is complete: \(submitted.output)")
    }

    /// `mi fill` on a terminal shows the note and moves on; Tab completes `today` for the date.
    func testFillShowsTheNoteAndCompletesToday() throws {
        let (sandbox, _) = try hydrantSandbox()
        try newHydrant(sandbox, name: "h-2")
        let (process, terminal) = try sandbox.startOnTerminal(["fill", "h-2"], plainLocale: false)

        XCTAssertTrue(terminal.waitFor("Open the cap slowly and stand clear of the outlet."), terminal.output)
        XCTAssertTrue(terminal.waitFor("Date YYYY-MM-DD > "), terminal.output)
        // An ambiguous day/month order is refused on the terminal and asked again.
        terminal.type("03/04/2026\r")
        XCTAssertTrue(terminal.waitFor("is ambiguous"), terminal.output)
        XCTAssertTrue(terminal.waitFor("Date YYYY-MM-DD > ", occurrence: 2), terminal.output)
        terminal.type("tod\t\r")
        XCTAssertTrue(terminal.waitFor("Time HH:MM > "), terminal.output)
        terminal.type("7:45\r")
        XCTAssertTrue(terminal.waitFor("Date and time YYYY-MM-DDTHH:MM > "), terminal.output)
        // Back from the date and time goes to the time; back again to the date, past nothing.
        terminal.type(":b\r")
        XCTAssertTrue(terminal.waitFor("Time HH:MM > ", occurrence: 2), terminal.output)
        terminal.type(":x\r")
        XCTAssertTrue(terminal.waitForEnd(), terminal.output)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal.output)
        XCTAssertTrue(terminal.output.contains("(3 question(s) still open)"), terminal.output)

        let stored = try answers(sandbox, "h-2")
        XCTAssertEqual(stored["serviced"]?["value"] as? String, Self.today(), "Tab completed today, read in the form's zone")
        XCTAssertEqual(stored["arrived"]?["value"] as? String, "07:45")
        XCTAssertNil(stored["intro"])

        // Piped, a fill of the whole form passes the note without a line for it.
        try newHydrant(sandbox, name: "h-3")
        let piped = try sandbox.run(["fill", "h-3"], stdin: "2026-01-02\n23:59\n2026-01-02T08:00Z\n5\nok\n\n")
        XCTAssertEqual(piped.status, 0, piped.output)
        XCTAssertEqual(try sandbox.formJSON("h-3")["answered"] as? Int, 5)
        XCTAssertEqual(try sandbox.formJSON("h-3")["questions"] as? Int, 5)
        let filled = try answers(sandbox, "h-3")
        XCTAssertEqual(filled["tested"]?["value"] as? String, "2026-01-02T08:00:00+00:00")
        XCTAssertEqual(filled["flow"]?["value"] as? Double, 5)
        XCTAssertEqual(filled["remarks"]?["value"] as? String, "ok")
    }

    // MARK: - Stats, exports, simulate, upload, office

    func testStatsExportsSimulateUploadAndTheOffice() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh as root")
        }
        let (sandbox, server) = try hydrantSandbox(server: true)
        let forms: [(name: String, serviced: String, arrived: String, flow: Int)] = [
            ("h-10", "2026-11-20", "08:15", 4), ("h-11", "2026-11-20", "08:50", 2), ("h-12", "2026-11-23", "14:05", 5),
        ]
        for form in forms {
            try newHydrant(sandbox, name: form.name)
            let file = sandbox.root.appendingPathComponent("\(form.name).json")
            let json = #"{"serviced": "\#(form.serviced)", "arrived": "\#(form.arrived)", "tested": "\#(form.serviced)T10:00", "flow": \#(form.flow), "remarks": "cap \#(form.name)"}"#
            try Data(json.utf8).write(to: file)
            let answered = try sandbox.run(["answer", form.name, "--file", file.path])
            XCTAssertEqual(answered.status, 0, answered.output)
            XCTAssertEqual(try sandbox.run(["submit", form.name]).status, 0)
        }

        // Statistics: dates per day, times per hour, the range like numbers, no note.
        let stats = try sandbox.run(["stats", "hydrant", "--json"], as: "fiona")
        XCTAssertEqual(stats.status, 0, stats.output)
        let figures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let questions = try XCTUnwrap(figures["questions"] as? [[String: Any]])
        XCTAssertEqual(questions.compactMap { $0["id"] as? String }, ["serviced", "arrived", "tested", "flow", "remarks"])
        let dates = try XCTUnwrap(questions[0]["dates"] as? [[String: Any]])
        XCTAssertEqual(dates.map { "\($0["day"] ?? "")=\($0["count"] ?? "")" }, ["2026-11-20=2", "2026-11-23=1"])
        let hours = try XCTUnwrap(questions[1]["hours"] as? [[String: Any]])
        XCTAssertEqual(hours.count, 24)
        XCTAssertEqual(hours[8]["count"] as? Int, 2)
        XCTAssertEqual(hours[14]["count"] as? Int, 1)
        let flow = try XCTUnwrap(questions[3]["numbers"] as? [String: Any])
        XCTAssertEqual(flow["mean"] as? Double ?? 0, 11.0 / 3, accuracy: 1e-9)
        let statsText = try sandbox.run(["stats", "hydrant"], as: "fiona")
        XCTAssertTrue(statsText.stdout.contains("per day, 2026-11-20 to 2026-11-23 (2 days with answers):"), statsText.stdout)
        XCTAssertTrue(statsText.stdout.contains("08:00–08:59") && statsText.stdout.contains("14:00–14:59"), statsText.stdout)
        XCTAssertFalse(statsText.stdout.contains("[intro]"), statsText.stdout)

        // The CSV has a column per answered type and none for the note; JSONL keeps the values.
        let archive = sandbox.root.appendingPathComponent("hydrant.zip")
        let exported = try sandbox.run(["export", "hydrant", "--output", archive.path, "--no-media"], as: "fiona")
        XCTAssertEqual(exported.status, 0, exported.output)
        let csv = try XCTUnwrap(try ZipArchiveReader(Array(try Data(contentsOf: archive))).entry("hydrant.csv"))
        let lines = String(decoding: csv.data, as: UTF8.self).split(separator: "\r\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(lines.count, 4)
        let header = lines[0].map { $0.replacingOccurrences(of: "\u{FEFF}", with: "") }
        XCTAssertEqual(Array(header[1...10]), ["serviced", "serviced-comment", "arrived", "arrived-comment", "tested", "tested-comment",
                                                "flow", "flow-comment", "remarks", "remarks-comment"])
        let rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        let first = try XCTUnwrap(rows.first { $0["remarks"] == "cap h-10" })
        XCTAssertEqual(first["serviced"], "2026-11-20")
        XCTAssertEqual(first["arrived"], "08:15")
        XCTAssertEqual(first["tested"], "2026-11-20T10:00:00-06:00")
        XCTAssertEqual(first["flow"], "4")
        let jsonl = sandbox.root.appendingPathComponent("hydrant.jsonl")
        let exportedLines = try sandbox.run(["export", "hydrant", "--output", jsonl.path, "--format", "jsonl"], as: "fiona")
        XCTAssertEqual(exportedLines.status, 0, exportedLines.output)
        let records = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(records.count, 3)
        let values = records.compactMap { (($0["answers"] as? [String: Any])?["arrived"] as? [String: Any])?["value"] as? String }.sorted()
        XCTAssertEqual(values, ["08:15", "08:50", "14:05"], "\(records.first ?? [:])")

        // Simulated forms: plausible values of every type, the note never answered, so they submit.
        let simulated = try sandbox.run(["simulate", "hydrant", "--count", "6", "--seed", "5", "--submit"], environment: ["TZ": Self.zone])
        XCTAssertEqual(simulated.status, 0, simulated.output)
        let made = try FileManager.default.contentsOfDirectory(atPath: sandbox.documents.appendingPathComponent("CompletedMIs/ana").path)
            .filter { $0.hasPrefix("sim-") }
        XCTAssertEqual(made.count, 6, "\(made)")
        for name in made {
            let form = try sandbox.formJSON(name, in: "CompletedMIs")
            let created = try Date(try XCTUnwrap(form["createdAt"] as? String), strategy: .iso8601)
            let stored = try answers(sandbox, name, in: "CompletedMIs")
            XCTAssertNil(stored["intro"])
            if let date = stored["serviced"]?["value"] as? String {
                let day = try Date(date + "T12:00:00Z", strategy: .iso8601)
                XCTAssertLessThan(abs(day.timeIntervalSince(created)), 62 * 86_400, "\(name): \(date)")
            }
            if let time = stored["arrived"]?["value"] as? String {
                let hour = Int(time.prefix(2)) ?? -1
                XCTAssertTrue((7...18).contains(hour), "\(name): working hours, got \(time)")
            }
            if let moment = stored["tested"]?["value"] as? String {
                XCTAssertTrue(moment.hasSuffix("-06:00") || moment.hasSuffix("-05:00"), "\(name): in the form's zone: \(moment)")
            }
            if let rating = stored["flow"]?["value"] as? Double {
                XCTAssertTrue([1, 2, 3, 4, 5].contains(rating), "\(name): on the scale: \(rating)")
            }
        }

        // Uploaded to the real mi-server; the office shows the submission and the statistics.
        let ids = try forms.map { try XCTUnwrap(try sandbox.formJSON($0.name, in: "CompletedMIs")["id"] as? String).lowercased() }
        for form in forms {
            let upload = try sandbox.run(["upload", "ana/\(form.name)"], as: "fiona")
            XCTAssertEqual(upload.status, 0, upload.output)
        }
        let facts: [String: Any] = ["id": ids[0], "fionaPassword": TestDirectory.password(for: "fiona")]
        let run = try browse(sandbox, facts: facts)
        let log = (try? String(contentsOf: try XCTUnwrap(server).log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, "the browser steps:\n\(run.output)\nmi-server's log (last 3000):\n\(log.suffix(3000))")
        XCTAssertTrue(run.stdout.contains("all 4 steps passed"), run.output)
        withExtendedLifetime(server) {}
    }

    /// The office steps, written over Resources/mi_office_browser.py's `Office` (its sign-in,
    /// pages and checks).
    static let browserSteps = #"""
        import json, os, sys
        sys.path.insert(0, os.environ["MI_OFFICE_BROWSER_DIR"])
        import mi_office_browser as browser
        from mi_office_browser import check
        from selenium.webdriver.common.by import By

        facts = json.loads(sys.argv[3])

        def section(office, question):
            return office.find(f'section.question[data-question-id="{question}"]')

        def submission(office):
            office.open(f"/submissions/{facts['id']}", "hydrant-submission")
            note = section(office, "intro")
            classes = note.get_attribute("class").split()
            check("note" in classes and "open" not in classes, f"the note's classes: {classes}")
            check("Open the cap slowly" in note.text, f"the note shows its text: {note.text!r}")
            check(not note.find_elements(By.CSS_SELECTOR, ".unanswered"), f"the note says no answer: {note.text!r}")
            shown = {q: section(office, q).find_element(By.CSS_SELECTOR, "p.value").text
                     for q in ("serviced", "arrived", "tested", "flow")}
            expected = {"serviced": "2026-11-20", "arrived": "08:15", "tested": "2026-11-20T10:00:00-06:00", "flow": "4"}
            check(shown == expected, f"the answers shown: {shown}")
            check("5 of 5 questions" in office.text(), f"the count leaves the note out: {office.text()[:400]!r}")
            return "note, date, time, date and time, range"

        def statistics(office):
            office.open("/templates/hydrant/stats", "hydrant-stats")
            ids = [s.get_attribute("data-question-id") for s in office.all("section.question-stats")]
            check(ids == ["serviced", "arrived", "tested", "flow", "remarks"], f"the questions with figures: {ids}")
            days = office.all('section.question-stats[data-question-id="serviced"] svg.chart-answer-days circle.point')
            check(len(days) == 2, f"{len(days)} day markers on the date's line, expected 2")
            rows = [r.text for r in office.all('section.question-stats[data-question-id="serviced"] table.dates tbody tr')]
            check(rows == ["2026-11-20 2", "2026-11-23 1"], f"the date's table: {rows}")
            hours = office.all('section.question-stats[data-question-id="arrived"] svg.chart-hours g.hour')
            check(len(hours) == 24, f"{len(hours)} hour columns, expected 24")
            hour_rows = [r.text for r in office.all('section.question-stats[data-question-id="arrived"] table.hours tbody tr')]
            check(hour_rows == ["08:00–08:59 2", "14:00–14:59 1"], f"the time's table: {hour_rows}")
            check(office.all('section.question-stats[data-question-id="flow"] svg.chart-histogram'), "no histogram of the range")
            return "a line of days, 24 hour columns, a histogram"

        def search(office):
            office.open("/submissions?q=2026-11-23", "hydrant-search")
            found = office.all("table#submissions tr.submission")
            check(len(found) == 1 and "h-12" in found[0].text, f"q=2026-11-23 finds: {[r.text for r in found]}")

        office = browser.Office(sys.argv[1], sys.argv[2], os.environ["MI_SCREENSHOTS"], "types-")
        try:
            if office.step("fiona signs in", browser.signed_in, office, "fiona", facts["fionaPassword"], "fiona"):
                office.step("the submission page shows every type and the note as a note", submission, office)
                office.step("the statistics page charts dates per day and times per hour", statistics, office)
                office.step("search finds a form by its date", search, office)
        finally:
            office.driver.quit()
        if office.failures:
            print("failed: " + "; ".join(office.failures))
            sys.exit(1)
        print(f"all {office.passed} steps passed")
        """#

    func browse(_ sandbox: Sandbox, facts: [String: Any]) throws -> RunResult {
        let library = try XCTUnwrap(Bundle.module.url(forResource: "mi_office_browser", withExtension: "py"))
        let script = sandbox.root.appendingPathComponent("office_types.py")
        try Data(Self.browserSteps.utf8).write(to: script)
        let screenshots = OfficeBrowserTests.screenshots
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let factsJSON = String(decoding: try JSONSerialization.data(withJSONObject: facts), as: UTF8.self)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = sandbox.root.path
        environment["MI_OFFICE_BROWSER_DIR"] = library.deletingLastPathComponent().path
        environment["MI_SCREENSHOTS"] = screenshots.path
        return try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/timeout"),
                                   ["--kill-after=10", "300", "python3", script.path, "http://127.0.0.1:\(sandbox.server.port)",
                                    sandbox.root.appendingPathComponent("chromium-profile").path, factsJSON],
                                   environment: environment, in: sandbox.root)
    }
}
