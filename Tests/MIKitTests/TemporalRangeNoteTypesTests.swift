import Foundation
@testable import MIKit
import XCTest

/// The `date`, `time`, `dateTime`, `range` and `note` types: their template keys (each bad
/// setting named by template, question and key), their answers from a line and from JSON, what
/// `today` and `now` mean in the form's zone, their CSV columns, tallies, statistics, simulated
/// values and presentation.
final class TemporalRangeNoteTypesTests: XCTestCase {
    static let template = #"""
        {"id": "hydrant", "title": "Hydrant", "version": 1, "questions": [
          {"id": "intro", "type": "note", "text": "Open the cap slowly."},
          {"id": "serviced", "type": "date", "text": "Last service", "min": "2020-01-01", "max": "2026-12-31"},
          {"id": "arrived", "type": "time", "text": "Arrival", "min": "06:00", "max": "20:00"},
          {"id": "tested", "type": "dateTime", "text": "Flow test"},
          {"id": "flow", "type": "range", "text": "Flow rating", "start": 1, "end": 5, "step": 1},
          {"id": "remarks", "type": "shortAnswer", "text": "Remarks"}
        ]}
        """#

    func decode(_ json: String = template) throws -> Template {
        try TemplateCoding(keys: .default).decode(Data(json.utf8), source: "hydrant.json")
    }

    /// The message of a template refused with `replacement` in place of `original`.
    func problem(_ original: String, _ replacement: String) throws -> String {
        let json = Self.template.replacingOccurrences(of: original, with: replacement)
        XCTAssertNotEqual(json, Self.template, "the replacement must change the template")
        do {
            _ = try decode(json)
            XCTFail("accepted: \(replacement)")
            return ""
        } catch {
            return error.localizedDescription
        }
    }

    /// Question `id`'s rules, with `today` and `now` at 2026-11-26 14:30:27 in Mexico City.
    func rules(_ id: String, in template: Template) throws -> AnswerRules {
        let index = try XCTUnwrap(template.index(of: id))
        return AnswerRules(question: template.questions[index], position: index + 1, count: template.questions.count,
                           temporal: context("2026-11-26T14:30:27-06:00", "America/Mexico_City"))
    }

    func refused(_ rules: AnswerRules, _ line: String, file: StaticString = #filePath, line number: UInt = #line) -> String {
        do {
            let value = try rules.value(fromLine: line)
            XCTFail("accepted \(line) as \(value)", file: file, line: number)
            return ""
        } catch let error as AnswerError {
            XCTAssertTrue(error.question.hasPrefix(rules.question.id), "names the question: \(error)", file: file, line: number)
            return error.rule
        } catch {
            XCTFail("not an AnswerError: \(error)", file: file, line: number)
            return ""
        }
    }

    // MARK: - Template keys

    func testTheTypesDecodeAndRoundTripThroughTemplateJSON() throws {
        let template = try decode()
        XCTAssertEqual(template.questions.map(\.typeName), ["note", "date", "time", "dateTime", "range", "shortAnswer"])
        XCTAssertEqual(template.questions[1].kind, .date(min: try LocalDate.parse("2020-01-01"), max: try LocalDate.parse("2026-12-31")))
        XCTAssertEqual(template.questions[2].kind, .time(min: try LocalTime.parse("06:00"), max: try LocalTime.parse("20:00")))
        XCTAssertEqual(template.questions[4].kind, try .range(start: 1, end: 5, step: 1))
        XCTAssertEqual(template.questions.map(\.typeDescription), [
            "note", "date from 2020-01-01 to 2026-12-31", "time from 06:00 to 20:00", "date and time",
            "range from 1 to 5 in steps of 1", "short answer",
        ])
        let coding = TemplateCoding(keys: .default)
        XCTAssertEqual(try coding.decode(coding.encode(template), source: "again"), template)
        // A range without a step steps by 1.
        let noStep = try decode(Self.template.replacingOccurrences(of: #", "step": 1"#, with: ""))
        XCTAssertEqual(noStep.questions[4].kind, try .range(start: 1, end: 5, step: 1))
    }

    func testBadBoundsAndScalesAreRefusedNamingTemplateQuestionAndKey() throws {
        let impossible = try problem(#""min": "2020-01-01""#, #""min": "2020-02-30""#)
        XCTAssertTrue(impossible.contains(#"template hydrant"#) && impossible.contains(#"question serviced, field "min""#)
                      && impossible.contains("2020-02-30 does not exist"), impossible)
        let ambiguous = try problem(#""max": "2026-12-31""#, #""max": "03/04/2026""#)
        XCTAssertTrue(ambiguous.contains(#"question serviced, field "max""#) && ambiguous.contains("YYYY-MM-DD"), ambiguous)
        let number = try problem(#""max": "2026-12-31""#, #""max": 2026"#)
        XCTAssertTrue(number.contains(#"field "max": expected a date as ISO 8601 text, found a number"#), number)
        let reversed = try problem(#""min": "06:00", "max": "20:00""#, #""min": "21:00", "max": "20:00""#)
        XCTAssertTrue(reversed.contains(#"question arrived, field "min": min 21:00:00 is after max 20:00:00"#), reversed)
        let hour = try problem(#""min": "06:00""#, #""min": "25:00""#)
        XCTAssertTrue(hour.contains(#"question arrived, field "min""#) && hour.contains("no hour 25"), hour)
        let zero = try problem(#""step": 1"#, #""step": 0"#)
        XCTAssertTrue(zero.contains(#"question flow, field "step": step 0 must be greater than 0"#), zero)
        let negative = try problem(#""step": 1"#, #""step": -1"#)
        XCTAssertTrue(negative.contains(#"question flow, field "step""#), negative)
        let uneven = try problem(#""step": 1"#, #""step": 3"#)
        XCTAssertTrue(uneven.contains(#"question flow, field "step": step 3 does not divide the range 1 to 5 evenly"#), uneven)
        let same = try problem(#""end": 5"#, #""end": 1"#)
        XCTAssertTrue(same.contains(#"question flow, field "end": start and end are both 1"#), same)
        let missing = try problem(#""start": 1, "#, "")
        XCTAssertTrue(missing.contains(#"question flow, field "start": missing"#), missing)
        let text = try problem(#""end": 5"#, #""end": "5""#)
        XCTAssertTrue(text.contains(#"question flow, field "end": expected a number, found"#), text)
    }

    // MARK: - Answers

    func testDatesAreStoredISOAndImpossibleOrAmbiguousOnesRefused() throws {
        let template = try decode()
        let date = try rules("serviced", in: template)
        XCTAssertEqual(try date.value(fromLine: " 2026-03-04 "), .text("2026-03-04"))
        XCTAssertEqual(try date.value(fromLine: "today"), .text("2026-11-26"), "today in the form's zone")
        XCTAssertEqual(try date.value(fromJSON: .string("2024-02-29")), .text("2024-02-29"))
        XCTAssertTrue(refused(date, "2026-02-30").contains("2026-02-30 does not exist: February 2026 has 28 days"))
        let ambiguous = refused(date, "03/04/2026")
        XCTAssertTrue(ambiguous.contains("ambiguous") && ambiguous.contains("2026-03-04") && ambiguous.contains("2026-04-03")
                      && ambiguous.contains("YYYY-MM-DD"), ambiguous)
        XCTAssertTrue(refused(date, "2019-12-31").contains("before the earliest allowed date, 2020-01-01"))
        XCTAssertTrue(refused(date, "tomorrow").contains("is not a date — write it as YYYY-MM-DD"))
        XCTAssertThrowsError(try date.value(fromJSON: .number(20260304)))
    }

    func testTimesAndDateTimesAreReadInTheFormsZone() throws {
        let template = try decode()
        let time = try rules("arrived", in: template)
        XCTAssertEqual(try time.value(fromLine: "14:30"), .text("14:30"))
        XCTAssertEqual(try time.value(fromLine: "9:05:15"), .text("09:05:15"), "seconds kept when given")
        XCTAssertEqual(try time.value(fromLine: "now"), .text("14:30:27"))
        XCTAssertTrue(refused(time, "25:00").contains("no hour 25"))
        XCTAssertTrue(refused(time, "2:30 pm").contains("write 14:30"))
        XCTAssertTrue(refused(time, "05:59").contains("before the earliest allowed time"))

        let moment = try rules("tested", in: template)
        XCTAssertEqual(try moment.value(fromLine: "2026-11-26T14:30"), .text("2026-11-26T14:30:00-06:00"))
        XCTAssertEqual(try moment.value(fromLine: "2026-11-26 09:00+01:00"), .text("2026-11-26T09:00:00+01:00"))
        XCTAssertEqual(try moment.value(fromLine: "NOW"), .text("2026-11-26T14:30:27-06:00"))
        XCTAssertTrue(refused(moment, "2026-11-26").contains("has no time"))
        XCTAssertTrue(refused(moment, "2026-02-30T10:00").contains("does not exist"))
    }

    func testRangeValuesMustBeOnTheScale() throws {
        let template = try decode()
        let flow = try rules("flow", in: template)
        XCTAssertEqual(try flow.value(fromLine: "4"), .number(4))
        XCTAssertEqual(try flow.value(fromJSON: .number(1)), .number(1))
        XCTAssertEqual(try flow.value(fromJSON: .string("5")), .number(5))
        XCTAssertTrue(refused(flow, "2.5").contains("not on a step of 1 from 1 — the nearest allowed values are 2 and 3"))
        XCTAssertTrue(refused(flow, "6").contains("outside the range 1 to 5"))
        XCTAssertTrue(refused(flow, "3,5").contains("use a dot"))
        XCTAssertEqual(template.questions[4].type.completions, ["1", "2", "3", "4", "5"])
        XCTAssertEqual(template.questions[1].type.completions, ["today"])
        XCTAssertEqual(template.questions[2].type.completions, ["now"])
        XCTAssertEqual(template.questions[3].type.completions, ["now"])
    }

    // MARK: - Notes

    func testANoteIsNeverOpenNeverAnsweredAndHasNoColumn() throws {
        let template = try decode()
        let note = template.questions[0]
        XCTAssertFalse(note.type.takesAnswer)
        XCTAssertEqual(template.answerableCount, 5)
        var form = Form(name: "h-1", user: "ana", template: template, createdAt: Date())
        XCTAssertEqual(form.openQuestions.map(\.id), ["serviced", "arrived", "tested", "flow", "remarks"])
        XCTAssertEqual(form.summary.questions, 5)
        XCTAssertThrowsError(try Workflow.apply([AnswerUpdate(question: "intro", value: .words(["ok"]))], to: &form)) { error in
            XCTAssertTrue(error.localizedDescription.contains("question intro (1 of 6): this is a note"), error.localizedDescription)
        }
        XCTAssertThrowsError(try Workflow.apply([AnswerUpdate(question: "intro", value: nil, comment: "seen")], to: &form))
        XCTAssertEqual(form.answers, [:], "nothing saved")
        XCTAssertEqual(note.type.presentation(of: nil), .note)
        XCTAssertEqual(CSVLayout(template: template).header.prefix(4), ["SubmissionDate", "serviced", "serviced-comment", "arrived"])
        XCTAssertFalse(CSVLayout(template: template).header.contains { $0.hasPrefix("intro") })
    }

    // MARK: - Statistics, simulation

    func testStatisticsCountDatesPerDayTimesPerHourAndLeaveNotesOut() throws {
        let template = try decode()
        var builder = try StatisticsBuilder(template: template)
        let values: [(String, String, String, Double)] = [
            ("2026-11-20", "08:15", "2026-11-20T08:00:00-06:00", 4),
            ("2026-11-20", "08:45:10", "2026-11-21T23:30:00-06:00", 5),
            ("2026-11-22", "14:00", "garbled", 3),
        ]
        for (index, (date, time, moment, flow)) in values.enumerated() {
            var form = Form(name: "h-\(index)", user: "ana", template: template, createdAt: Date())
            form.status = .completed
            form.submittedAt = Date()
            form.answers = ["serviced": Answer(value: .text(date)), "arrived": Answer(value: .text(time)),
                            "tested": Answer(value: .text(moment)), "flow": Answer(value: .number(flow))]
            XCTAssertTrue(builder.add(form))
        }
        let result = builder.result()
        XCTAssertEqual(result.questions.map(\.id), ["serviced", "arrived", "tested", "flow", "remarks"], "no note")
        XCTAssertEqual(result.questions[0].dates, [DayCount(day: "2026-11-20", count: 2), DayCount(day: "2026-11-22", count: 1)])
        let hours = try XCTUnwrap(result.questions[1].hours)
        XCTAssertEqual(hours.count, 24)
        XCTAssertEqual(hours[8], HourCount(hour: 8, count: 2))
        XCTAssertEqual(hours[14], HourCount(hour: 14, count: 1))
        XCTAssertEqual(hours.map(\.count).reduce(0, +), 3)
        // A date and time counts on its local date; a value that is not one is listed as text.
        XCTAssertEqual(result.questions[2].dates, [DayCount(day: "2026-11-20", count: 1), DayCount(day: "2026-11-21", count: 1)])
        XCTAssertEqual(result.questions[2].values, [ValueCount(value: "garbled", count: 1)])
        XCTAssertEqual(result.questions[3].numbers?.mean, 4)
        XCTAssertEqual(result.questions[3].numbers?.integer, true)
        let json = String(decoding: try JSONEncoder().encode(result.questions[1]), as: UTF8.self)
        XCTAssertTrue(json.contains(#""hours":[{"count":0,"hour":0}"#) || json.contains(#""hours":[{"hour":0,"count":0}"#), json)
    }

    func testSimulatedValuesAreValidAndDatesFallAroundTheFormsStart() throws {
        let template = try decode()
        var simulator = Simulator(seed: 7)
        for round in 0..<40 {
            var form = Form(name: "s-\(round)", user: "ana", template: template,
                            createdAt: try Date("2026-06-15T12:00:00Z", strategy: .iso8601))
            form.timeZone = "America/Mexico_City"
            try simulator.fill(&form, by: "ana", at: form.createdAt)
            XCTAssertNil(form.answers["intro"], "a note is never answered")
            if case .text(let text)? = form.answers["serviced"]?.value {
                let date = try LocalDate.parse(text)
                let created = try LocalDate.parse("2026-06-15")
                XCTAssertTrue((-60...30).contains(date.daysSinceEpoch - created.daysSinceEpoch), text)
            }
            if case .text(let text)? = form.answers["arrived"]?.value {
                let time = try LocalTime.parse(text)
                XCTAssertTrue((7...18).contains(time.hour), text)
            }
            if case .text(let text)? = form.answers["tested"]?.value {
                XCTAssertTrue(text.hasSuffix("-06:00") || text.hasSuffix("-05:00"), "in the form's zone: \(text)")
            }
            if case .number(let flow)? = form.answers["flow"]?.value {
                XCTAssertTrue([1, 2, 3, 4, 5].contains(flow), "\(flow)")
            }
        }
    }

    /// The GeoJSON export's properties are the answers: a note is none, as it is no CSV column.
    func testGeoJSONHasNoPropertyForANote() throws {
        let template = try decode()
        var form = Form(id: FormID(), name: "h-1", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 1_795_651_200))
        form.startLocation = try Geopoint(latitude: 19.4326, longitude: -99.1332)
        form.answers["flow"] = Answer(value: .number(4))
        let feature = try XCTUnwrap(GeoJSON.feature(for: form, template: template))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(feature)) as? [String: Any])
        let properties = try XCTUnwrap(object["properties"] as? [String: Any])
        XCTAssertEqual(properties["flow"] as? Double, 4)
        XCTAssertTrue(properties["remarks"] is NSNull, "an unanswered question is null")
        XCTAssertFalse(properties.keys.contains("intro"), "\(properties.keys.sorted())")
    }
}
