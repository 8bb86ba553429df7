import Foundation
@testable import MIKit
import XCTest

final class RemindersTests: XCTestCase {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC
    static let day = 86_400.0
    static let utc = TimeZone(identifier: "UTC") ?? .current

    static func summary(_ name: String, daysAgo: Double, status: Form.Status = .incomplete) -> FormSummary {
        let created = now.addingTimeInterval(-daysAgo * day)
        return FormSummary(id: FormID(), name: name, user: "anna", status: status, templateID: "pump",
                           templateTitle: "Pump inspection", templateVersion: 1, createdAt: created, updatedAt: created,
                           submittedAt: nil, questions: 3, answered: 1, media: 0)
    }

    static let forms = [
        summary("new", daysAgo: 0),
        summary("one", daysAgo: 1),
        summary("two", daysAgo: 2),
        summary("old", daysAgo: 8),
        summary("done", daysAgo: 1, status: .completed),
    ]

    private func reminders() -> [Reminder] {
        Reminders.all(for: Self.forms, reminderDays: [1, 2], expiryDays: 7)
    }

    private func names(_ reminders: [Reminder]) -> [String] { reminders.map { "\($0.formName)/\($0.day)" } }

    // MARK: - Due and upcoming

    func testAllIsSortedAndSkipsCompletedForms() {
        let all = reminders()
        XCTAssertEqual(all.map(\.dueAt), all.map(\.dueAt).sorted())
        XCTAssertFalse(all.contains { $0.formName == "done" })
        XCTAssertEqual(Set(names(all)), ["new/1", "new/2", "one/1", "one/2", "two/1", "two/2", "old/1", "old/2"])
        let old = all.filter { $0.formName == "old" }
        XCTAssertEqual(old.first?.expiresAt, Self.now.addingTimeInterval(-Self.day))
    }

    func testDueAndUpcomingAtNow() {
        let all = reminders()
        XCTAssertEqual(Set(names(Reminders.due(all, at: Self.now))), ["one/1", "two/1", "two/2"])
        XCTAssertEqual(Set(names(Reminders.upcoming(all, at: Self.now))), ["new/1", "new/2", "one/2"])
    }

    func testExpiredFormHasNothingDue() {
        let old = reminders().filter { $0.formName == "old" }
        XCTAssertTrue(Reminders.due(old, at: Self.now).isEmpty)
        XCTAssertTrue(Reminders.upcoming(old, at: Self.now).isEmpty)
    }

    func testReminderDaysAtOrAfterExpiryAreDropped() {
        let all = Reminders.all(for: [Self.summary("new", daysAgo: 0)], reminderDays: [2, 7, 9, 2, 0], expiryDays: 7)
        XCTAssertEqual(names(all), ["new/2"])
    }

    func testDueUntilTheFormExpires() {
        let reminder = Reminders.all(for: [Self.summary("f", daysAgo: 0)], reminderDays: [1], expiryDays: 7)
        XCTAssertEqual(Reminders.due(reminder, at: Self.now.addingTimeInterval(Self.day - 1)).count, 0)
        XCTAssertEqual(Reminders.due(reminder, at: Self.now.addingTimeInterval(Self.day)).count, 1)
        XCTAssertEqual(Reminders.due(reminder, at: Self.now.addingTimeInterval(7 * Self.day - 1)).count, 1)
        XCTAssertEqual(Reminders.due(reminder, at: Self.now.addingTimeInterval(7 * Self.day)).count, 0)
    }

    // MARK: - iCalendar

    private func calendar(_ reminders: [Reminder]) -> String {
        Reminders.iCalendar(reminders, now: Self.now, timeZone: Self.utc)
    }

    /// Unfolds per RFC 5545: a CRLF followed by one space or tab joins the lines.
    private func unfolded(_ ics: String) -> [String] {
        ics.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    func testCalendarStructure() throws {
        let form = Self.summary("pump-2026-11-18", daysAgo: 0)
        let all = Reminders.all(for: [form], reminderDays: [1, 2], expiryDays: 9)
        let ics = calendar(all)
        XCTAssertTrue(ics.hasSuffix("END:VCALENDAR\r\n"))
        XCTAssertFalse(ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        let lines = unfolded(ics)
        XCTAssertEqual(Array(lines.prefix(4)), ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//MI//Reminders//EN", "CALSCALE:GREGORIAN"])
        XCTAssertEqual(lines.filter { $0 == "BEGIN:VEVENT" }.count, 2)
        XCTAssertEqual(lines.filter { $0 == "END:VEVENT" }.count, 2)
        XCTAssertEqual(lines.filter { $0 == "BEGIN:VALARM" }.count, 2)
        let id = form.id.description
        XCTAssertTrue(lines.contains("UID:\(id)-day1@mi"))
        XCTAssertTrue(lines.contains("UID:\(id)-day2@mi"))
        XCTAssertTrue(lines.contains("DTSTAMP:20261118T110640Z"))
        XCTAssertTrue(lines.contains("DTSTART:20261119T110640Z"))
        XCTAssertTrue(lines.contains("DTSTART:20261120T110640Z"))
        XCTAssertEqual(lines.filter { $0 == "DURATION:PT15M" }.count, 2)
        XCTAssertEqual(lines.filter { $0 == "ACTION:DISPLAY" }.count, 2)
        XCTAssertEqual(lines.filter { $0 == "TRIGGER:-PT0M" }.count, 2)
        XCTAssertTrue(lines.contains("SUMMARY:Inspection form pump-2026-11-18 expires 2026-11-27"), lines.joined(separator: "\n"))
        let description = try XCTUnwrap(lines.first { $0.hasPrefix("DESCRIPTION:Pump inspection") })
        XCTAssertTrue(description.contains("`mi fill pump-2026-11-18`"), description)
        XCTAssertTrue(description.contains("\\,"), "commas are escaped: \(description)")
    }

    func testCalendarUIDsAreStableAcrossCalls() {
        let all = reminders()
        let first = unfolded(calendar(all)).filter { $0.hasPrefix("UID:") }
        let second = unfolded(Reminders.iCalendar(all, now: Self.now.addingTimeInterval(3_600), timeZone: Self.utc))
            .filter { $0.hasPrefix("UID:") }
        XCTAssertEqual(first.count, all.count)
        XCTAssertEqual(first, second)
        XCTAssertEqual(Set(first).count, first.count)
    }

    func testLongUnicodeLinesAreFoldedAt75OctetsWithoutSplittingCharacters() throws {
        let name = "Ñuñoa-bomba-de-agua-¿Qué-día-es-hoy?-inspección-número-siete-señal-añadida-über-大阪"
        let all = Reminders.all(for: [Self.summary(name, daysAgo: 0)], reminderDays: [1], expiryDays: 7)
        let ics = calendar(all)
        let physical = ics.components(separatedBy: "\r\n")
        for line in physical {
            XCTAssertLessThanOrEqual(line.utf8.count, 75, line)
        }
        XCTAssertTrue(physical.contains { $0.hasPrefix(" ") }, "the long summary is folded")
        // Every physical line is valid UTF-8 on its own (no sequence was cut).
        let bytes = Array(ics.utf8)
        var start = 0
        for index in bytes.indices where index + 1 < bytes.count && bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
            XCTAssertNotNil(String(validating: bytes[start..<index], as: UTF8.self), "line starting at \(start)")
            start = index + 2
        }
        XCTAssertTrue(unfolded(ics).contains("SUMMARY:Inspection form \(name) expires 2026-11-25"))
    }

    func testTextValuesAreEscaped() {
        XCTAssertEqual(CalendarText.escape("a\\b;c,d\ne\r\nf"), "a\\\\b\\;c\\,d\\ne\\nf")
        let reminder = Reminder(formID: FormID(), formName: "p;1,2", user: "anna", templateTitle: "Line\nbreak",
                                day: 1, dueAt: Self.now, expiresAt: Self.now.addingTimeInterval(Self.day))
        let lines = unfolded(calendar([reminder]))
        XCTAssertTrue(lines.contains("SUMMARY:Inspection form p\\;1\\,2 expires 2026-11-19"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("DESCRIPTION:Line\\nbreak: form p\\;1\\,2") })
        XCTAssertTrue(lines.contains { $0.contains("`mi fill 'p\\;1\\,2'`") }, "a name that needs quoting is quoted")
    }

    func testEmptyCalendar() {
        XCTAssertEqual(calendar([]), "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//MI//Reminders//EN\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\nEND:VCALENDAR\r\n")
    }

    // MARK: - Reminder log

    func testReminderLogShowsEachReminderOncePerDay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-reminders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = ReminderLog(file: folder.appendingPathComponent("state/reminders.json"), timeZone: Self.utc)
        let due = Reminders.due(reminders(), at: Self.now)
        XCTAssertEqual(due.count, 3)

        XCTAssertEqual(log.unseen(due, on: Self.now), due, "nothing shown yet")
        try log.markSeen(due, on: Self.now)
        XCTAssertEqual(log.unseen(due, on: Self.now), [], "shown once today")
        XCTAssertEqual(log.unseen(due, on: Self.now.addingTimeInterval(3_600)), [], "still today an hour later")

        let tomorrow = Self.now.addingTimeInterval(Self.day)
        XCTAssertEqual(log.unseen(due, on: tomorrow), due, "shown again the next day")
        try log.markSeen(Array(due.prefix(1)), on: tomorrow)
        XCTAssertEqual(log.unseen(due, on: tomorrow), Array(due.dropFirst()))

        let stored = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: log.file))
        XCTAssertEqual(stored, [due[0].key: "2026-11-19"], "yesterday's entries are dropped")
    }

    func testUnreadableLogShowsEverything() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mi-reminders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("reminders.json")
        try Data("not json".utf8).write(to: file)
        let log = ReminderLog(file: file, timeZone: Self.utc)
        let due = Reminders.due(reminders(), at: Self.now)
        XCTAssertEqual(log.unseen(due, on: Self.now), due)
        try log.markSeen(due, on: Self.now)
        XCTAssertEqual(log.unseen(due, on: Self.now), [])
    }
}
