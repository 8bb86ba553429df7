import Foundation

/// A reminder that an incomplete form should be finished: due on one of the `ReminderDays`
/// after the form was started, pointless once the form expires.
public struct Reminder: Sendable, Equatable, Codable {
    public var formID: FormID
    public var formName: String
    public var user: String
    public var templateTitle: String
    /// Days after the form was created (one of `ReminderDays`).
    public var day: Int
    public var dueAt: Date
    /// When the form expires (`ExpiryDays` after it was created) and is deleted.
    public var expiresAt: Date

    public init(formID: FormID, formName: String, user: String, templateTitle: String, day: Int, dueAt: Date, expiresAt: Date) {
        self.formID = formID
        self.formName = formName
        self.user = user
        self.templateTitle = templateTitle
        self.day = day
        self.dueAt = dueAt
        self.expiresAt = expiresAt
    }

    /// Stable across runs: `<form id>-day<day>`, the key of the reminder log and of the
    /// calendar event's UID.
    public var key: String { "\(formID.description)-day\(day)" }

    enum CodingKeys: String, CodingKey { case formID, formName, user, templateTitle, day, dueAt, expiresAt }

    /// Ids are written in lowercase, as everywhere in MI's JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(formID.description, forKey: .formID)
        try container.encode(formName, forKey: .formName)
        try container.encode(user, forKey: .user)
        try container.encode(templateTitle, forKey: .templateTitle)
        try container.encode(day, forKey: .day)
        try container.encode(dueAt, forKey: .dueAt)
        try container.encode(expiresAt, forKey: .expiresAt)
    }
}

/// Which reminders are due, and the same reminders as an RFC 5545 calendar.
public enum Reminders {
    /// Every reminder of these forms that falls before the form expires, sorted by `dueAt`.
    /// Completed forms have none.
    public static func all(for forms: [FormSummary], reminderDays: [Int], expiryDays: Int) -> [Reminder] {
        let days = Set(reminderDays.filter { $0 >= 1 }).sorted()
        var reminders: [Reminder] = []
        for form in forms where form.status == .incomplete {
            let expiresAt = Store.expiryDate(of: form, expiryDays: expiryDays)
            for day in days {
                let dueAt = form.expiryStart.addingTimeInterval(Double(day) * 86_400)
                guard dueAt < expiresAt else { continue }
                reminders.append(Reminder(formID: form.id, formName: form.name, user: form.user,
                                          templateTitle: form.templateTitle, day: day, dueAt: dueAt, expiresAt: expiresAt))
            }
        }
        return reminders.sorted { ($0.dueAt, $0.formName, $0.day) < ($1.dueAt, $1.formName, $1.day) }
    }

    /// The reminders whose day has come and whose form has not expired yet.
    public static func due(_ reminders: [Reminder], at now: Date) -> [Reminder] {
        reminders.filter { $0.dueAt <= now && now < $0.expiresAt }
    }

    /// The reminders still to come.
    public static func upcoming(_ reminders: [Reminder], at now: Date) -> [Reminder] {
        reminders.filter { $0.dueAt > now }
    }

    /// An RFC 5545 calendar with one 15-minute event per reminder, each with a display alarm
    /// at its start. UIDs are stable, so importing the file again updates the events instead
    /// of duplicating them. Expiry dates are printed in `timeZone`.
    public static func iCalendar(_ reminders: [Reminder], now: Date, timeZone: TimeZone = .current) -> String {
        var lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//MI//Reminders//EN",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
        ]
        let stamp = CalendarText.utc(now)
        for reminder in reminders {
            let expiry = CalendarText.day(reminder.expiresAt, timeZone: timeZone)
            let summary = "Inspection form \(reminder.formName) expires \(expiry)"
            let description = """
                \(reminder.templateTitle): form \(reminder.formName) of \(reminder.user) is not finished \
                (day \(reminder.day) reminder). Finish it with `\(ShellWord.mi("fill", reminder.formName))` \
                and submit it with `\(ShellWord.mi("submit", reminder.formName))` before \(expiry), \
                when it expires and is deleted.
                """
            lines += [
                "BEGIN:VEVENT",
                "UID:\(reminder.key)@mi",
                "DTSTAMP:\(stamp)",
                "DTSTART:\(CalendarText.utc(reminder.dueAt))",
                "DURATION:PT15M",
                "SUMMARY:\(CalendarText.escape(summary))",
                "DESCRIPTION:\(CalendarText.escape(description))",
                "BEGIN:VALARM",
                "ACTION:DISPLAY",
                "TRIGGER:-PT0M",
                "DESCRIPTION:\(CalendarText.escape(summary))",
                "END:VALARM",
                "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        return lines.map(CalendarText.fold).joined(separator: "\r\n") + "\r\n"
    }
}

/// RFC 5545 text rules.
enum CalendarText {
    /// A TEXT value: backslash, semicolon, comma and newline escaped; other control characters dropped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.replacingOccurrences(of: "\r\n", with: "\n").unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r": escaped += "\\n"
            case "\t": escaped += " "
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Folds a content line into lines of at most 75 octets, continuation lines starting with
    /// one space, never splitting a UTF-8 sequence (or a character).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var folded: [String] = []
        var current = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            let limit = folded.isEmpty ? 75 : 74  // a continuation line's leading space counts
            if octets + size > limit {
                folded.append(current)
                current = ""
                octets = 0
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        folded.append(current)
        return folded.joined(separator: "\r\n ")
    }

    /// A UTC DATE-TIME: `20261127T083000Z`.
    static func utc(_ date: Date) -> String {
        let components = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let date = pad(components.year, 4) + pad(components.month, 2) + pad(components.day, 2)
        return date + "T" + pad(components.hour, 2) + pad(components.minute, 2) + pad(components.second, 2) + "Z"
    }

    /// `2026-11-27` in `timeZone`.
    static func day(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = calendar.dateComponents([.year, .month, .day], from: date)
        return pad(components.year, 4) + "-" + pad(components.month, 2) + "-" + pad(components.day, 2)
    }

    private static func pad(_ value: Int?, _ width: Int) -> String {
        let digits = String(value ?? 0)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        return calendar
    }()
}

/// Remembers which reminders were shown on which day, so each is shown once per day. A JSON
/// file: reminder key (`<form id>-day<day>`) → the day it was last shown (`yyyy-MM-dd`).
public struct ReminderLog: Sendable {
    public let file: URL
    public let timeZone: TimeZone

    public init(file: URL, timeZone: TimeZone = .current) {
        self.file = file
        self.timeZone = timeZone
    }

    /// The reminders of `due` not yet shown on `day`. An unreadable log counts as empty: the
    /// worst case is a reminder shown twice.
    public func unseen(_ due: [Reminder], on day: Date) -> [Reminder] {
        let seen = read()
        let today = CalendarText.day(day, timeZone: timeZone)
        return due.filter { seen[$0.key] != today }
    }

    /// Records that `reminders` were shown on `day`. Entries of earlier days are dropped: they
    /// no longer hide anything.
    public func markSeen(_ reminders: [Reminder], on day: Date) throws {
        let today = CalendarText.day(day, timeZone: timeZone)
        var seen = read().filter { $0.value >= today }
        for reminder in reminders { seen[reminder.key] = today }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(seen)
        try DurableFile.makeFolder(file.deletingLastPathComponent())
        try DurableFile.write(data, to: file)
    }

    private func read() -> [String: String] {
        guard let data = try? Data(contentsOf: file),
              let seen = try? JSONDecoder().decode([String: String].self, from: data) else { return [:] }
        return seen
    }
}
