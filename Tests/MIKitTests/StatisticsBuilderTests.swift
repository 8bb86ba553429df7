import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// `StatisticsBuilder`: every question type, the filters, group-by and what does not fit.
final class StatisticsBuilderTests: XCTestCase {
    static let template = Template(id: "pump", title: "Pump", version: 2, questions: [
        Question(id: "state", text: "State", kind: .multipleChoice(options: ["ok", "worn", "broken"], maxAnswers: 1)),
        Question(id: "faults", text: "Faults", kind: .multipleChoice(options: ["leak", "noise", "heat"], maxAnswers: 0)),
        Question(id: "running", text: "Running?", kind: .trueFalse),
        Question(id: "note", text: "Note", kind: .shortAnswer),
        Question(id: "pressure", text: "Pressure", kind: .numeric(integer: false, min: nil, max: nil)),
        Question(id: "blades", text: "Blades", kind: .numeric(integer: true, min: 0, max: 50)),
        Question(id: "readings", text: "Readings", kind: .table(rows: ["in", "out"], columns: ["bar", "remark"],
                                                                  noCells: [Cell(row: 1, column: 1)])),
        Question(id: "photos", text: "Photos", kind: .shortAnswer),
    ])
    static let day = Date(timeIntervalSince1970: 1_772_442_000)  // 2026-03-02T09:00:00Z

    func form(user: String = "ana", version: Int = 2, submitted: Date? = day, status: Form.Status = .completed,
              _ answers: [String: Answer]) -> Form {
        var template = Self.template
        template.version = version
        var form = Form(name: "f", user: user, template: template, createdAt: Self.day.addingTimeInterval(-86_400))
        form.status = status
        form.submittedAt = status == .completed ? submitted : nil
        form.answers = answers
        return form
    }

    func statistics(_ forms: [Form], filters: StatisticsFilters = StatisticsFilters()) throws -> TemplateStatistics {
        var builder = try StatisticsBuilder(template: Self.template, filters: filters)
        for form in forms { builder.add(form) }
        return builder.result()
    }

    func question(_ statistics: TemplateStatistics, _ id: String) throws -> QuestionStatistics {
        try XCTUnwrap(statistics.questions.first { $0.id == id })
    }

    func testCountsAnsweredCommentOnlyAndUnanswered() throws {
        let result = try statistics([
            form(["note": Answer(value: .text("fine"))]),
            form(["note": Answer(comment: "could not see")]),
            form(["note": Answer(comment: "  ")]),
            form([:]),
        ])
        let note = try question(result, "note")
        XCTAssertEqual(result.forms, 4)
        XCTAssertEqual([note.answered, note.commentOnly, note.unanswered], [1, 1, 2])
        XCTAssertEqual(note.type, "shortAnswer")
        XCTAssertEqual(result.questions.map(\.id), Self.template.questions.map(\.id))
    }

    func testCountsTheSimulatedForms() throws {
        var simulated = form([:])
        simulated.record(AuditEvent(at: Self.day, by: "ana", action: .simulated))
        let result = try statistics([simulated, form([:]), form([:])])
        XCTAssertEqual(result.forms, 3)
        XCTAssertEqual(result.simulated, 1)
    }

    func testSingleChoicePercentagesAreOfTheFormsThatAnswered() throws {
        let result = try statistics([
            form(["state": Answer(value: .choices(["ok"]))]),
            form(["state": Answer(value: .choices(["ok"]))]),
            form(["state": Answer(value: .choices(["worn"]))]),
            form(["state": Answer(value: .choices(["retired"]))]),  // an option the template dropped
            form([:]),
        ])
        let state = try question(result, "state")
        XCTAssertEqual(state.options, [OptionCount(label: "ok", count: 2, percent: 50), OptionCount(label: "worn", count: 1, percent: 25),
                                       OptionCount(label: "broken", count: 0, percent: 0),
                                       OptionCount(label: "retired", count: 1, percent: 25)])
        XCTAssertEqual(state.multipleAnswers, false)
    }

    func testMultiSelectCountsEachChosenOptionSoPercentagesMayPass100() throws {
        let result = try statistics([
            form(["faults": Answer(value: .choices(["leak", "noise"]))]),
            form(["faults": Answer(value: .choices(["leak"]))]),
        ])
        let faults = try question(result, "faults")
        XCTAssertEqual(faults.multipleAnswers, true)
        XCTAssertEqual(faults.options?.map(\.count), [2, 1, 0])
        XCTAssertEqual(faults.options?.map(\.percent), [100, 50, 0])
        XCTAssertGreaterThan(faults.options?.map(\.percent).reduce(0, +) ?? 0, 100)
    }

    func testTrueFalseReportsTrueAndFalse() throws {
        let result = try statistics([
            form(["running": Answer(value: .bool(true))]), form(["running": Answer(value: .bool(true))]),
            form(["running": Answer(value: .bool(false))]), form(["running": Answer(comment: "no power")]),
        ])
        let running = try question(result, "running")
        XCTAssertEqual(running.options, [OptionCount(label: "true", count: 2, percent: 200.0 / 3),
                                         OptionCount(label: "false", count: 1, percent: 100.0 / 3)])
        XCTAssertEqual(running.commentOnly, 1)
    }

    func testNoAnswersGiveZeroPercentNotNaN() throws {
        let result = try statistics([form([:])])
        XCTAssertEqual(try question(result, "running").options?.map(\.percent), [0, 0])
        XCTAssertNil(try question(result, "pressure").numbers)
    }

    func testShortAnswersTrimAndKeepCaseTenMostFrequentTiesByValue() throws {
        var forms = [form(["note": Answer(value: .text(" Leak "))]), form(["note": Answer(value: .text("Leak"))]),
                     form(["note": Answer(value: .text("leak"))])]
        for index in 0..<12 { forms.append(form(["note": Answer(value: .text("v\(String(format: "%02d", index))"))])) }
        let note = try question(try statistics(forms), "note")
        XCTAssertEqual(note.values?.first, ValueCount(value: "Leak", count: 2))
        XCTAssertEqual(note.values?.count, 10)
        XCTAssertEqual(note.values?.dropFirst().map(\.value), ["leak", "v00", "v01", "v02", "v03", "v04", "v05", "v06", "v07"])
        XCTAssertEqual(note.distinctValues, 14)
    }

    func testNumericSummary() throws {
        let values: [Double] = [2.5, 3.1, 4.0, 4.0, 7.75, 10.2]
        let result = try statistics(values.map { form(["pressure": Answer(value: .number($0))]) })
        let numbers = try XCTUnwrap(try question(result, "pressure").numbers)
        XCTAssertEqual(numbers.count, 6)
        XCTAssertEqual(numbers.mean, values.reduce(0, +) / 6, accuracy: 1e-12)
        XCTAssertEqual(numbers.minimum, 2.5)
        XCTAssertEqual(numbers.maximum, 10.2)
        // Python: statistics.quantiles([2.5, 3.1, 4.0, 4.0, 7.75, 10.2], method="inclusive") == [3.325, 4.0, 6.8125]
        XCTAssertEqual(numbers.lowerQuartile, 3.325, accuracy: 1e-12)
        XCTAssertEqual(numbers.median, 4.0)
        XCTAssertEqual(numbers.upperQuartile, 6.8125, accuracy: 1e-12)
        // Python: statistics.stdev(...) == 3.0351…
        XCTAssertEqual(try XCTUnwrap(numbers.standardDeviation), 3.0351963143537626, accuracy: 1e-9)
        XCTAssertEqual(numbers.histogram.map(\.count).reduce(0, +), 6)
    }

    func testNumericValueThatIsNotANumberIsListedNotLost() throws {
        let result = try statistics([form(["pressure": Answer(value: .number(3))]), form(["pressure": Answer(value: .text("high"))]),
                                     form(["pressure": Answer(value: .text(" 4.5 "))])])
        let pressure = try question(result, "pressure")
        XCTAssertEqual(pressure.answered, 3)
        XCTAssertEqual(pressure.numbers?.count, 2)
        XCTAssertEqual(pressure.numbers?.maximum, 4.5)
        XCTAssertEqual(pressure.values, [ValueCount(value: "high", count: 1)])
    }

    func testIntegerQuestionBinsOnWholeNumbers() throws {
        let result = try statistics([3, 5, 5, 7].map { form(["blades": Answer(value: .number($0))]) })
        let histogram = try XCTUnwrap(try question(result, "blades").numbers?.histogram)
        XCTAssertEqual(histogram, [HistogramBin(lower: 3, upper: 4, count: 1), HistogramBin(lower: 4, upper: 5, count: 0),
                                   HistogramBin(lower: 5, upper: 6, count: 2), HistogramBin(lower: 6, upper: 7, count: 0),
                                   HistogramBin(lower: 7, upper: 8, count: 1)])
    }

    func testTableCellsNumericWhenEveryValueIsANumberElseValues() throws {
        let result = try statistics([
            form(["readings": Answer(value: .cells([["2.5", "ok"], ["3", nil]]))]),
            form(["readings": Answer(value: .cells([["3.5", "ok"], ["n/a", nil]]))]),
            form(["readings": Answer(value: .cells([["", "Dirty"], ["4", nil]]))]),
        ])
        let cells = try XCTUnwrap(try question(result, "readings").cells)
        XCTAssertEqual(cells.map { "\($0.row),\($0.column)" }, ["0,0", "0,1", "1,0"])
        XCTAssertEqual(cells[0].rowLabel, "in")
        XCTAssertEqual(cells[0].columnLabel, "bar")
        XCTAssertEqual(cells[0].answered, 2)
        XCTAssertEqual(cells[0].numbers?.mean, 3)
        XCTAssertNil(cells[0].values)
        XCTAssertEqual(cells[1].values, [ValueCount(value: "ok", count: 2), ValueCount(value: "Dirty", count: 1)])
        XCTAssertNil(cells[1].numbers)
        XCTAssertEqual(cells[2].answered, 3)
        XCTAssertNil(cells[2].numbers, "n/a is not a number, so the cell lists values")
        XCTAssertEqual(cells[2].distinctValues, 3)
    }

    func testTableCellOutsideTheGridIsKept() throws {
        let result = try statistics([form(["readings": Answer(value: .cells([["1", "a", "extra"], ["2", nil]]))])])
        let cells = try XCTUnwrap(try question(result, "readings").cells)
        XCTAssertEqual(cells.last?.column, 2)
        XCTAssertEqual(cells.last?.columnLabel, "column 3")
        XCTAssertEqual(cells.last?.values, [ValueCount(value: "extra", count: 1)])
    }

    func testNumbersAsTextAreNotNanOrInfinity() throws {
        let result = try statistics([form(["readings": Answer(value: .cells([["nan", "x"], ["inf", nil]]))])])
        let cells = try XCTUnwrap(try question(result, "readings").cells)
        XCTAssertNil(cells[0].numbers)
        XCTAssertNil(cells[2].numbers)
    }

    func testMediaCountByKindOtherForUnknown() throws {
        let result = try statistics([
            form(["photos": Answer(comment: "see photos", media: ["Qid7(1).jpg", "Qid7(2).PNG", "Qid7(3).mp4", "Qid7(4).m4a", "Qid7(5).xyz"])]),
            form(["photos": Answer(value: .text("x"), media: ["Qid7(1).heic"])]),
        ])
        XCTAssertEqual(try question(result, "photos").media, [MediaCount(kind: "photo", count: 3), MediaCount(kind: "video", count: 1),
                                                              MediaCount(kind: "audio", count: 1), MediaCount(kind: "other", count: 1)])
        XCTAssertEqual(try question(result, "note").media, [])
    }

    func testOnlyCompletedFormsOfTheTemplateCount() throws {
        var other = form([:])
        other.template.id = "fan"
        var builder = try StatisticsBuilder(template: Self.template)
        XCTAssertTrue(builder.add(form([:])))
        XCTAssertFalse(builder.add(form(status: .incomplete, [:])))
        XCTAssertFalse(builder.add(other))
        XCTAssertEqual(builder.result().forms, 1)
    }

    func testFiltersOnDatesUserAndVersion() throws {
        let dates = try StatisticsFilters.dates(from: "2026-03-02", to: "2026-03-03")
        let filters = StatisticsFilters(from: dates.from, to: dates.to, user: "ana", version: 2)
        let forms = [
            form(submitted: Self.day, [:]),  // counted
            form(submitted: UTCDay.parse("2026-03-03T23:59:59Z"), [:]),  // counted: `to` is inclusive
            form(submitted: UTCDay.parse("2026-03-04T00:00:00Z"), [:]),
            form(submitted: UTCDay.parse("2026-03-01T23:59:59Z"), [:]),
            form(user: "bo", [:]),
            form(version: 1, [:]),
        ]
        let result = try statistics(forms, filters: filters)
        XCTAssertEqual(result.forms, 2)
        XCTAssertEqual(result.filters, filters)
        XCTAssertEqual(result.days, [DayCount(day: "2026-03-02", count: 1), DayCount(day: "2026-03-03", count: 1)])
        XCTAssertEqual(forms.filter(filters.includes).count, 2)
    }

    func testDaysAreUTCOldestFirst() throws {
        let result = try statistics([
            form(submitted: UTCDay.parse("2026-03-05T00:00:00Z"), [:]), form(submitted: UTCDay.parse("2026-03-01T23:59:59Z"), [:]),
            form(submitted: UTCDay.parse("2026-03-05T23:00:00Z"), [:]),
        ])
        XCTAssertEqual(result.days, [DayCount(day: "2026-03-01", count: 1), DayCount(day: "2026-03-05", count: 2)])
    }

    func testGroupByMultiSelectCountsAFormInEachChosenGroupPlusUnanswered() throws {
        let result = try statistics([
            form(["faults": Answer(value: .choices(["leak", "noise"])), "blades": Answer(value: .number(4))]),
            form(["faults": Answer(value: .choices(["leak"])), "blades": Answer(value: .number(6))]),
            form(["faults": Answer(comment: "not checked"), "blades": Answer(value: .number(9))]),
            form(["faults": Answer(value: .choices(["rust"]))]),
        ], filters: StatisticsFilters(groupBy: "faults"))
        let groups = try XCTUnwrap(result.groups)
        XCTAssertEqual(groups.map(\.label), ["leak", "noise", "heat", "rust", nil])
        XCTAssertEqual(groups.map(\.forms), [2, 1, 0, 1, 1])
        XCTAssertEqual(groups[0].questions.first { $0.id == "blades" }?.numbers?.mean, 5)
        XCTAssertEqual(groups[4].questions.first { $0.id == "blades" }?.numbers?.mean, 9)
        XCTAssertEqual(groups[2].questions.count, Self.template.questions.count, "an empty group still lists every question")
        XCTAssertEqual(result.forms, 4)
    }

    func testGroupByTrueFalse() throws {
        let result = try statistics([form(["running": Answer(value: .bool(false))])], filters: StatisticsFilters(groupBy: "running"))
        XCTAssertEqual(result.groups?.map(\.label), ["true", "false", nil])
        XCTAssertEqual(result.groups?.map(\.forms), [0, 1, 0])
    }

    func testMergingPiecesInOrderGivesTheSameResultAsOneBuilder() throws {
        var forms: [Form] = []
        for number in 0..<40 {
            let text = number % 5 == 0 ? "not a number" : String(Double(number) * 0.1 + 0.07)
            var form = form(user: number % 3 == 0 ? "bob" : "ana", submitted: Self.day.addingTimeInterval(Double(number) * 40_000), [
                "state": Answer(value: .choices([["ok", "worn", "retired"][number % 3]])),
                "faults": Answer(value: .choices(number % 4 == 0 ? [] : ["leak", "heat"]), media: ["a\(number).jpg"]),
                "running": number % 7 == 0 ? Answer(comment: "off") : Answer(value: .bool(number % 2 == 0)),
                "note": Answer(value: .text(["fine", "Fine ", "leak"][number % 3])),
                "pressure": Answer(value: .number(Double(number) * 0.37 + 1e-9)),
                "blades": Answer(value: number % 9 == 0 ? .text(text) : .number(Double(number % 13))),
                "readings": Answer(value: .cells([[text, "r\(number % 2)"], [String(number), nil], ["x", "y", "z"]])),
            ])
            if number % 11 == 0 { form.audit.append(AuditEvent(at: Self.day, by: "sim", action: .init(rawValue: "simulated") ?? .created)) }
            forms.append(form)
        }
        for filters in [StatisticsFilters(), StatisticsFilters(groupBy: "state"), StatisticsFilters(groupBy: "faults")] {
            let whole = try statistics(forms, filters: filters)
            for cut in [0, 1, 17, 39, 40] {
                var first = try StatisticsBuilder(template: Self.template, filters: filters)
                var second = first
                for form in forms[..<cut] { first.add(form) }
                for form in forms[cut...] { second.add(form) }
                first.merge(second)
                XCTAssertEqual(first.result(), whole, "cut at \(cut), group by \(filters.groupBy ?? "none")")
            }
        }
    }

    func testNoGroupsWithoutGroupBy() throws {
        XCTAssertNil(try statistics([form([:])]).groups)
    }

    func testGroupByRefusesAQuestionThatIsNotAChoice() {
        XCTAssertThrowsError(try StatisticsBuilder(template: Self.template, filters: StatisticsFilters(groupBy: "pressure"))) { error in
            XCTAssertEqual(error as? StatisticsError,
                           .groupByNotChoice(question: "pressure", type: "number", choices: ["state", "faults", "running"]))
            XCTAssertEqual((error as? StatisticsError)?.failureClass, .usage)
            XCTAssertTrue((error as? StatisticsError)?.errorDescription?.contains("give one of: state, faults, running") ?? false)
        }
    }

    func testGroupByRefusesAnUnknownQuestion() {
        XCTAssertThrowsError(try StatisticsBuilder(template: Self.template, filters: StatisticsFilters(groupBy: "nope"))) { error in
            XCTAssertEqual((error as? StatisticsError)?.code, "unknown-group-by")
            XCTAssertEqual((error as? StatisticsError)?.failureClass, .usage)
        }
    }

    func testScopedFiltersKeepATechnicianToTheirOwnForms() throws {
        let technician = Actor(name: "ana", role: .technician)
        XCTAssertEqual(try StatisticsFilters().scoped(to: technician).user, "ana")
        XCTAssertEqual(try StatisticsFilters(user: "ana").scoped(to: technician).user, "ana")
        XCTAssertThrowsError(try StatisticsFilters(user: "bo").scoped(to: technician)) { error in
            XCTAssertEqual((error as? StatisticsError)?.failureClass, .notPermitted)
        }
        XCTAssertNil(try StatisticsFilters().scoped(to: Actor(name: "fiona", role: .foreman)).user)
        XCTAssertEqual(try StatisticsFilters(user: "bo").scoped(to: Actor(name: "fiona", role: .foreman)).user, "bo")
    }

    func testResultRoundTripsAsJSON() throws {
        let result = try statistics([form(["faults": Answer(value: .choices(["leak"]))])], filters: StatisticsFilters(groupBy: "faults"))
        let data = try WireJSON.encoder().encode(result)
        XCTAssertEqual(try WireJSON.decoder().decode(TemplateStatistics.self, from: data), result)
    }
}

private extension UTCDay {
    /// An instant the tests spell out (they are all valid).
    static func parse(_ text: String) -> Date {
        (try? parse(text, parameter: "test", endOfDay: false)) ?? .distantPast
    }
}

/// The scores in statistics: per key, numbers summarized and words counted with percents.
final class ScoreStatisticsTests: XCTestCase {
    static func sheet(_ total: Double?, _ category: String) -> ScoreSheet {
        var values: [ScoreEntry] = []
        if let total { values.append(ScoreEntry("ipaq.totalMET", .number(total))) }
        values.append(ScoreEntry("ipaq.category", .text(category)))
        return ScoreSheet(scoring: .ipaqShort, values: values)
    }

    static let sheets = [sheet(600, "moderate"), sheet(3360, "high"), sheet(nil, "excluded"), sheet(1455, "moderate"),
                         sheet(99.5, "low")]

    func testNumbersAreSummarizedAndWordsCountedInTheScorersKeyOrder() throws {
        var tally = ScoreTally()
        for sheet in Self.sheets { tally.add(sheet) }
        let scores = tally.statistics(.ipaqShort)
        XCTAssertEqual(scores.map(\.key), ["ipaq.totalMET", "ipaq.category"], "only keys that occurred, in the scorer's order")
        let total = scores[0]
        XCTAssertEqual(total.forms, 4)
        XCTAssertNil(total.categories)
        XCTAssertEqual(total.numbers, NumberSummary(values: [600, 3360, 1455, 99.5], integer: false))
        XCTAssertEqual(total.numbers?.median, 1027.5)
        let category = scores[1]
        XCTAssertEqual(category.forms, 5)
        XCTAssertNil(category.numbers)
        XCTAssertEqual(category.categories, [
            OptionCount(label: "moderate", count: 2, percent: 40), OptionCount(label: "excluded", count: 1, percent: 20),
            OptionCount(label: "high", count: 1, percent: 20), OptionCount(label: "low", count: 1, percent: 20),
        ])
    }

    func testMergedTalliesEqualOneTally() {
        var whole = ScoreTally(), first = ScoreTally(), second = ScoreTally()
        for (index, sheet) in Self.sheets.enumerated() {
            whole.add(sheet)
            if index < 2 { first.add(sheet) } else { second.add(sheet) }
        }
        first.merge(second)
        XCTAssertEqual(first.statistics(.ipaqShort), whole.statistics(.ipaqShort))
    }

    func testAScoredTemplatesStatisticsCarryScoresAndAnUnscoredOnesDoNot() throws {
        let template = try TemplateFixture.sample("ipaq")
        var builder = try StatisticsBuilder(template: template)
        var form = Form(name: "ipaq-1", user: "ana", template: template, createdAt: TestClock.start)
        form.status = .completed
        form.submittedAt = TestClock.start
        form = try XCTUnwrap(IPAQCases.all.first).applied(to: form)
        XCTAssertTrue(builder.add(form))
        var tally = ScoreTally()
        tally.add(try XCTUnwrap(form.scores))
        XCTAssertEqual(builder.result().scores, tally.statistics(.ipaqShort), "the builder scores each form it counts")
        XCTAssertNil(try StatisticsBuilder(template: StatisticsBuilderTests.template).result().scores)
    }
}
