import Foundation
import XCTest

/// Output that keeps names whole: piped, a row is one line whatever `COLUMNS` says; on a
/// terminal of any width no form name, template, id or date is split; messages break between
/// words; the upload's progress bar fits the terminal and ends at the whole size sent.
final class OutputWidthTests: XCTestCase {
    static let longName = "north-hall-boiler-room-pump-station-7"

    private func onTerminal(_ sandbox: Sandbox, _ arguments: [String], as user: String = "ana",
                            columns: UInt16) throws -> (status: Int32, lines: [String]) {
        try sandbox.runOnTerminal(arguments, as: user, columns: columns)
    }

    /// A form of ana's with the long name, one of bob's, and ana's submitted one; returns the
    /// identifiers a table may show: names, template, id prefixes, days and times.
    private func forms(_ sandbox: Sandbox) throws -> Set<String> {
        try sandbox.importSamples()
        try sandbox.importSamples(as: "bob")
        var identifiers: Set<String> = ["pump-inspection", "extinguisher-check", Self.longName]
        for (user, template, name) in [("ana", "pump-inspection", Self.longName), ("bob", "extinguisher-check", "short"),
                                       ("ana", "extinguisher-check", "hall-b-extinguisher-by-the-east-door")] {
            _ = try sandbox.newForm(template, as: user, name: name)
            let form = try sandbox.formJSON(name, user: user)
            identifiers.insert(String(try XCTUnwrap(form["id"] as? String).lowercased().prefix(8)))
            identifiers.insert(name)
        }
        let answers = sandbox.root.appendingPathComponent("answers.json")
        try Data(ForemanTests.extinguisherAnswers.utf8).write(to: answers)
        XCTAssertEqual(try sandbox.run(["answer", "hall-b-extinguisher-by-the-east-door", "--file", answers.path]).status, 0)
        XCTAssertEqual(try sandbox.run(["submit", "hall-b-extinguisher-by-the-east-door"]).status, 0)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        for word in formatter.string(from: Date()).split(separator: " ") { identifiers.insert(String(word)) }
        return identifiers
    }

    /// Fails when a line holds a piece of an identifier (3+ characters of its start or end)
    /// instead of the whole one.
    private func assertNoIdentifierSplit(_ lines: [String], _ identifiers: Set<String>, _ context: String,
                                         file: StaticString = #filePath, line: UInt = #line) {
        for text in lines {
            for word in text.split(separator: " ").map(String.init) where word.count >= 3 && !identifiers.contains(word) {
                for identifier in identifiers where identifier.hasPrefix(word) || identifier.hasSuffix(word) {
                    XCTFail("\(context): «\(word)» is a piece of \(identifier) in «\(text)»\n\(lines.joined(separator: "\n"))",
                            file: file, line: line)
                }
            }
        }
    }

    func testPipedListAndQueueKeepEachRowOnOneLineAtAnyColumns() throws {
        let sandbox = try Sandbox()
        _ = try forms(sandbox)
        var environment = sandbox.environment(for: "ana")
        environment["COLUMNS"] = "40"
        environment["PATH"] = Sandbox.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let grep = try Sandbox.execute(URL(fileURLWithPath: "/bin/bash"), ["-c", "mi list | grep \(Self.longName)"],
                                       environment: environment, in: sandbox.root)
        XCTAssertEqual(grep.status, 0, grep.output)
        XCTAssertTrue(grep.stdout.contains(Self.longName) && grep.stdout.contains("pump-inspection v"), grep.stdout)
        XCTAssertEqual(grep.stdout.split(separator: "\n").count, 1, grep.stdout)

        let queue = try sandbox.run(["queue"], as: "fiona", environment: ["COLUMNS": "100"])
        XCTAssertEqual(queue.status, 0, queue.output)
        let row = try XCTUnwrap(queue.stdout.split(separator: "\n").first { $0.contains(Self.longName) }, queue.stdout)
        XCTAssertTrue(row.hasPrefix("ana") && row.contains("pump-inspection v") && row.contains("in 7 days"), String(row))
        let submitted = try XCTUnwrap(queue.stdout.split(separator: "\n").first { $0.contains("hall-b-extinguisher-by-the-east-door") })
        XCTAssertTrue(submitted.contains("extinguisher-check v") && submitted.contains("today"), String(submitted))
    }

    func testTablesOnATerminalNeverSplitAnIdentifierAtAnyWidth() throws {
        let sandbox = try Sandbox()
        let identifiers = try forms(sandbox)
        for columns: UInt16 in [40, 60, 80, 100, 132] {
            let list = try onTerminal(sandbox, ["list"], columns: columns)
            XCTAssertEqual(list.status, 0, list.lines.joined(separator: "\n"))
            XCTAssertTrue(list.lines.contains { $0 == Self.longName || $0.hasPrefix(Self.longName + " ") }, "\(columns): \(list.lines.joined(separator: "\n"))")
            assertNoIdentifierSplit(list.lines, identifiers, "mi list at \(columns) columns")
            for line in list.lines { XCTAssertLessThanOrEqual(line.count, Int(columns), "mi list at \(columns): «\(line)»") }

            let queue = try onTerminal(sandbox, ["queue"], as: "fiona", columns: columns)
            XCTAssertEqual(queue.status, 0, queue.lines.joined(separator: "\n"))
            XCTAssertTrue(queue.lines.contains { $0.contains(" \(Self.longName)") }, "\(columns): \(queue.lines.joined(separator: "\n"))")
            assertNoIdentifierSplit(queue.lines, identifiers, "mi queue at \(columns) columns")
            if columns >= 60 {
                for line in queue.lines { XCTAssertLessThanOrEqual(line.count, Int(columns), "mi queue at \(columns): «\(line)»") }
            }
        }
        // Wide enough, every column is there.
        let wide = try onTerminal(sandbox, ["queue"], as: "fiona", columns: 200)
        XCTAssertTrue(wide.lines.contains { $0.hasPrefix("TECHNICIAN") && $0.contains("MEDIA") && $0.hasSuffix("ID") },
                      wide.lines.joined(separator: "\n"))
    }

    func testMessagesBreakBetweenWordsOnATerminal() throws {
        let sandbox = try Sandbox()
        _ = try forms(sandbox)
        let reference = "north-hall-boiler-room-pump-statoin-7"
        let piped = try sandbox.run(["review", reference])
        XCTAssertEqual(piped.status, 66, piped.output)
        let message = piped.stderr.trimmingCharacters(in: .newlines)
        XCTAssertFalse(message.contains("\n"), "piped, the message is one line: \(message)")
        XCTAssertGreaterThan(message.count, 100)
        for columns: UInt16 in [40, 80] {
            let shown = try onTerminal(sandbox, ["review", reference], columns: columns)
            XCTAssertEqual(shown.status, 66)
            let lines = shown.lines.filter { !$0.isEmpty }
            XCTAssertGreaterThan(lines.count, 1, lines.joined(separator: "\n"))
            for line in lines { XCTAssertLessThanOrEqual(line.count, Int(columns), "«\(line)»") }
            XCTAssertEqual(lines.joined(separator: " "), message, "only spaces became line breaks")
        }
    }

    func testTheUploadProgressBarFitsTheTerminalAndEndsAtTheWholeSize() throws {
        let sandbox = try Sandbox(server: Sandbox.ServerSettings(extraKeys: "<key>ResumableThresholdBytes</key><integer>\(1 << 20)</integer>"))
        try ServerTests.prepare(sandbox)
        let server = try RunningServer(sandbox)
        let name = try ServerTests.completedForm(sandbox, name: "video-check", mediaBytes: 6 << 20)
        let columns: UInt16 = 60
        let upload = try onTerminal(sandbox, ["upload", "ana/\(name)"], as: "fiona", columns: columns)
        XCTAssertEqual(upload.status, 0, upload.lines.joined(separator: "\n"))
        withExtendedLifetime(server) {}
        let drawings = upload.lines.flatMap { $0.components(separatedBy: "\r") }
            .map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.hasPrefix("ana/\(name) ") }
        XCTAssertFalse(drawings.isEmpty, upload.lines.joined(separator: "\n"))
        for drawing in drawings { XCTAssertLessThan(drawing.count, Int(columns), "«\(drawing)»") }
        // Each redraw stays on one line: the bar's lines are the drawings of one line and its end.
        XCTAssertEqual(upload.lines.filter { $0.contains("ana/\(name) ") && !$0.contains("Uploaded") }.count, 1,
                       upload.lines.joined(separator: "\n"))
        let final = try XCTUnwrap(drawings.last)
        XCTAssertTrue(final.contains("100%"), final)
        let sizes = final.split(separator: " ").enumerated().compactMap { index, word -> Double? in
            guard word == "MiB" || word == "KiB" || word == "B" else { return nil }
            let number = final.split(separator: " ")[index - 1]
            return Double(number).map { $0 * (word == "MiB" ? 1_048_576 : word == "KiB" ? 1024 : 1) }
        }
        XCTAssertGreaterThanOrEqual(sizes.first ?? 0, Double(6 << 20), "the whole size sent: \(final)")
        XCTAssertEqual(sizes.first, sizes.dropFirst().first, final)
    }
}
