import Foundation
import XCTest

/// `mi print` read back with poppler, and reminders checked by an independent iCalendar parser.
final class PrintAndRemindersTests: XCTestCase {
    func tool(_ name: String, _ arguments: [String]) throws -> String {
        let result = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/\(name)"), arguments)
        XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
        return result.stdout
    }

    func testPrintedFormHasItsQuestionsAnswersPhotosAndAccents() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("inspeccion-bomba", name: "bomba-1")
        let answers = sandbox.root.appendingPathComponent("a.json")
        try Data(#"""
            {"dia": "Martes 3 de marzo, Ñuñoa", "sello": {"value": false, "comment": "Goteo en el drenaje"},
             "ruido": ["Cavitación"], "presion": 7.5, "temperaturas": [["41", "44"], ["39", "40"]]}
            """#.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", name, "--file", answers.path]).status, 0)
        let media = sandbox.repository.appendingPathComponent("Samples/media")
        XCTAssertEqual(try sandbox.run(["attach", name, "sello", media.appendingPathComponent("gauge.jpg").path,
                                        media.appendingPathComponent("seal.png").path]).status, 0)
        let pdf = sandbox.root.appendingPathComponent("bomba.pdf")
        let printed = try sandbox.run(["print", name, "--output", pdf.path, "--paper", "a4"])
        XCTAssertEqual(printed.status, 0, printed.output)

        XCTAssertTrue(try tool("pdfinfo", [pdf.path]).contains("Pages:"))
        let text = try tool("pdftotext", ["-layout", pdf.path, "-"])
        for expected in ["¿Qué día se realizó la inspección?", "Martes 3 de marzo, Ñuñoa", "Goteo en el drenaje",
                         "Cavitación", "7.5", "Lado acople", "Tarde", "Inspección de bomba", "bomba-1"] {
            XCTAssertTrue(text.contains(expected), "missing «\(expected)» in the PDF text:\n\(text)")
        }
        let images = try tool("pdfimages", ["-list", pdf.path]).split(separator: "\n").dropFirst(2)
        XCTAssertEqual(images.count, 2, "one image per photo: \(images)")
        XCTAssertTrue(images.contains { $0.contains("jpeg") }, "the JPEG is embedded as JPEG: \(images)")

        // A foreman prints a technician's form by user/name.
        let foremanPDF = sandbox.root.appendingPathComponent("foreman.pdf")
        let foreman = try sandbox.run(["print", "ana/\(name)", "--output", foremanPDF.path], as: "fiona")
        XCTAssertEqual(foreman.status, 0, foreman.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: foremanPDF.path))
        // Another technician cannot.
        let other = try sandbox.run(["print", name, "--output", foremanPDF.path], as: "bob")
        XCTAssertNotEqual(other.status, 0)
    }

    func testPrinterErrorsAreClearAndThePDFIsStillWritten() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm("extinguisher-check")
        let pdf = sandbox.root.appendingPathComponent("x.pdf")
        let result = try sandbox.run(["print", name, "--output", pdf.path, "--printer", "no-such-printer"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("lp") || result.stderr.contains("no-such-printer"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the PDF is at \(pdf.path)"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pdf.path))
        let bad = try sandbox.run(["print", name, "--output", "/nonexistent/folder/x.pdf"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertFalse(bad.stderr.contains("Fatal error"), bad.stderr)
    }

    func testRemindersFallDueOnTheConfiguredDaysAndReachACalendar() throws {
        let sandbox = try Sandbox(expiryDays: 7)
        try sandbox.importSamples()
        try sandbox.ensureLoggedIn("fiona")
        let ages = [("d0", 0.0), ("d1", 1.0), ("d2", 2.0), ("d8", 8.0)]
        for (name, _) in ages { _ = try sandbox.newForm("extinguisher-check", name: name) }
        for (name, days) in ages where days > 0 { try ExpiryTests.age(sandbox, name, days: days + 0.01) }
        let result = try sandbox.run(["reminders", "--json", "--ics", sandbox.root.appendingPathComponent("r.ics").path])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stderr.contains("deleted 1 incomplete form older than 7 days: Users/ana/d8"), result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        func pairs(_ key: String) -> Set<String> {
            Set(((object[key] as? [[String: Any]]) ?? []).map { "\($0["formName"] ?? "")/\($0["day"] ?? "")" })
        }
        XCTAssertEqual(pairs("due"), ["d1/1", "d2/1", "d2/2"])
        XCTAssertEqual(pairs("upcoming"), ["d0/1", "d0/2", "d1/2"])

        // An independent parser reads the calendar, event by event.
        let script = """
            import json, sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            events = []
            for e in cal.walk('VEVENT'):
                alarms = [a for a in e.walk('VALARM')]
                events.append({'uid': str(e['UID']), 'summary': str(e['SUMMARY']),
                               'start': e.decoded('DTSTART').isoformat(), 'alarms': len(alarms),
                               'action': str(alarms[0]['ACTION']) if alarms else ''})
            print(json.dumps({'version': str(cal['VERSION']), 'events': events}))
            """
        let parsed = try Sandbox.execute(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["python3", "-c", script, sandbox.root.appendingPathComponent("r.ics").path])
        XCTAssertEqual(parsed.status, 0, "python3 with icalendar (pip install icalendar): \(parsed.stderr)")
        let calendar = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(calendar["version"] as? String, "2.0")
        let events = try XCTUnwrap(calendar["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 6)
        for event in events {
            XCTAssertEqual(event["alarms"] as? Int, 1, "\(event)")
            XCTAssertEqual(event["action"] as? String, "DISPLAY")
            XCTAssertTrue((event["uid"] as? String ?? "").hasSuffix("@mi"), "\(event)")
        }
        XCTAssertEqual(Set(events.compactMap { $0["uid"] as? String }).count, 6, "UIDs are unique")
        XCTAssertTrue(events.contains { ($0["summary"] as? String ?? "").contains("d2") && ($0["summary"] as? String ?? "").contains("expires") })

        // Due reminders are shown before a technician's command output, once a day.
        let first = try sandbox.run(["list"])
        XCTAssertEqual(first.stderr.components(separatedBy: "reminder:").count - 1, 3, "«\(first.stderr)» «\(first.stdout)»")
        let second = try sandbox.run(["list"])
        XCTAssertFalse(second.stderr.contains("reminder:"), second.stderr)
        // A foreman sees everyone's.
        let foreman = try sandbox.run(["reminders", "--json"], as: "fiona")
        XCTAssertTrue(foreman.stdout.contains("\"user\" : \"ana\""), foreman.stdout)
    }
}
