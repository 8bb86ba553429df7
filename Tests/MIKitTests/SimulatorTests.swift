import Foundation
@testable import MIKit
import TestSupport
import XCTest

final class SimulatorTests: XCTestCase {
    /// Every question type, with the limits that are easy to get wrong.
    private let template = Template(id: "sim", title: "Simulated", version: 1, questions: [
        Question(id: "one", text: "One", kind: .multipleChoice(options: ["A", "B", "C", "D"], maxAnswers: 1)),
        Question(id: "any", text: "Any", kind: .multipleChoice(options: ["A", "B", "C", "D"], maxAnswers: 0)),
        Question(id: "two", text: "Up to two", kind: .multipleChoice(options: ["A", "B", "C", "D"], maxAnswers: 2)),
        Question(id: "tf", text: "True?", kind: .trueFalse),
        Question(id: "note", text: "Note", kind: .shortAnswer),
        Question(id: "fixed", text: "Fixed", kind: .numeric(integer: true, min: 4, max: 4)),
        Question(id: "range", text: "Range", kind: .numeric(integer: false, min: -2.5, max: 7.25)),
        Question(id: "open", text: "Open", kind: .numeric(integer: true, min: nil, max: nil)),
        Question(id: "above", text: "Above", kind: .numeric(integer: false, min: 1000, max: nil)),
        Question(id: "grid", text: "Grid", kind: .table(rows: ["r0", "r1"], columns: ["c0", "c1", "c2"],
                                                    noCells: [Cell(row: 0, column: 1), Cell(row: 1, column: 2)])),
    ])

    private func filled(seed: UInt64) throws -> Form {
        var form = Form(name: "f", user: "ana", template: template, createdAt: TestClock.start)
        var simulator = Simulator(seed: seed)
        try simulator.fill(&form, by: "ana", at: TestClock.start)
        return form
    }

    func testTheGeneratorIsSplitMix64() {
        // The reference values of SplitMix64 from seed 0: the sequence never changes.
        var generator = SeededGenerator(seed: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
        var unit = SeededGenerator(seed: 0)
        XCTAssertEqual(unit.unit(), Double(UInt64(0xE220_A839_7B1D_CDAF) >> 11) / 9_007_199_254_740_992)
    }

    func testTheSameSeedGivesTheSameAnswers() throws {
        XCTAssertEqual(try filled(seed: 42).answers, try filled(seed: 42).answers)
    }

    func testDifferentSeedsGiveDifferentAnswers() throws {
        XCTAssertNotEqual(try filled(seed: 1).answers, try filled(seed: 2).answers)
    }

    func testEveryAnswerKeepsTheRulesOverManySeeds() throws {
        var commentOnly = 0
        var chosenCounts: [String: Set<Int>] = [:]
        for seed in UInt64(0)..<400 {
            let form = try filled(seed: seed)
            XCTAssertTrue(form.openQuestions.isEmpty, "seed \(seed): every question answered or commented")
            XCTAssertTrue(form.isSimulated)
            XCTAssertEqual(form.audit.map(\.action), [.simulated, .answered])
            for (index, question) in template.questions.enumerated() {
                let answer = form.answer(for: question.id)
                guard let value = answer.value else {
                    XCTAssertNotNil(answer.comment, "seed \(seed) \(question.id)")
                    commentOnly += 1
                    continue
                }
                // The value is exactly what the rules make of it.
                let rules = Workflow.rules(for: index, in: template)
                switch value {
                case .choices(let labels):
                    XCTAssertEqual(try rules.value(fromJSON: .array(labels.map(JSONValue.string))), value)
                    chosenCounts[question.id, default: []].insert(labels.count)
                case .number(let number):
                    XCTAssertEqual(try rules.value(fromJSON: .number(number)), value)
                case .cells(let rows):
                    XCTAssertEqual(rows[0][1], nil, "a no-value cell stays empty")
                    XCTAssertEqual(rows[1][2], nil, "a no-value cell stays empty")
                    XCTAssertEqual(rows.flatMap { $0 }.compactMap { $0 }.count, 4, "every other cell has a value")
                    XCTAssertTrue(rows.flatMap { $0 }.compactMap { $0 }.allSatisfy { Double($0) != nil }, "cells are numbers")
                case .location(let point):
                    XCTAssertEqual(try rules.value(fromJSON: point.json), value)
                case .bool, .text: break
                }
                if question.id == "fixed" { XCTAssertEqual(value, .number(4)) }
                if question.id == "open", case .number(let n) = value { XCTAssertEqual(n, n.rounded()) }
                if question.id == "above", case .number(let n) = value { XCTAssertGreaterThanOrEqual(n, 1000) }
            }
        }
        XCTAssertEqual(chosenCounts["one"], [1])
        XCTAssertEqual(chosenCounts["two"], [1, 2], "up to two, and sometimes two")
        XCTAssertEqual(chosenCounts["any"], [1, 2, 3, 4], "any number from one to all")
        let total = 400 * template.questions.count
        XCTAssertTrue((total / 50...total / 10).contains(commentOnly), "about 5 % comment-only, got \(commentOnly) of \(total)")
    }

    func testNumbersClusterAroundTheMiddle() {
        var generator = SeededGenerator(seed: 9)
        let values = (0..<2000).compactMap { _ in NumericQuestion.simulated(integer: false, min: 0, max: 60, &generator) }
        let mean = values.reduce(0, +) / Double(values.count)
        XCTAssertEqual(mean, 30, accuracy: 1.5)
        XCTAssertTrue(values.allSatisfy { (0...60).contains($0) })
        XCTAssertGreaterThan(values.filter { (20...40).contains($0) }.count, values.count / 2, "roughly normal, not uniform")
    }

    func testAnIntegerRangeWithoutAWholeNumberGetsACommentNotAnError() throws {
        let impossible = Template(id: "x", title: "X", version: 1, questions: [
            Question(id: "q", text: "Q", kind: .numeric(integer: true, min: 1.2, max: 1.8)),
        ])
        var form = Form(name: "f", user: "ana", template: impossible, createdAt: TestClock.start)
        var simulator = Simulator(seed: 3)
        try simulator.fill(&form, by: "ana", at: TestClock.start)
        XCTAssertNil(form.answer(for: "q").value)
        XCTAssertNotNil(form.answer(for: "q").comment)
    }

    func testTheAuditSentenceSaysSimulated() {
        XCTAssertEqual(AuditEvent(at: TestClock.start, by: "ana", action: .simulated).sentence,
                       "answers simulated (mi simulate) by ana")
    }

    // MARK: - Workflow.simulate

    func testSimulateCreatesNamedFormsAndSubmitsThemSpreadOverThirtyDays() throws {
        let fixture = try StoreFixture()
        let workflow = fixture.workflow()
        let request = SimulationRequest(templateID: TemplateFixture.sampleID, count: 12, seed: 7, submit: true)
        let forms = try workflow.simulate(request)
        XCTAssertEqual(forms.map(\.name), (1...12).map { "sim-7-\($0)" })
        let completed = try fixture.store.list(.completed, user: "ana").forms
        XCTAssertEqual(completed.count, 12)
        for form in forms {
            XCTAssertEqual(form.status, .completed)
            XCTAssertEqual(form.audit.map(\.action), [.created, .simulated, .answered, .submitted])
            let submitted = try XCTUnwrap(form.submittedAt)
            XCTAssertLessThan(form.createdAt, submitted)
            XCTAssertLessThanOrEqual(submitted, TestClock.start)
            XCTAssertGreaterThan(submitted, TestClock.start.addingTimeInterval(-30 * 86_400))
        }
        XCTAssertEqual(forms.map(\.submittedAt), forms.map(\.submittedAt).sorted { ($0 ?? .distantPast) < ($1 ?? .distantPast) })
        XCTAssertGreaterThan(Set(forms.compactMap { $0.submittedAt.map { Int($0.timeIntervalSince1970 / 86_400) } }).count, 3,
                             "spread over several days")
    }

    func testSimulateWithTheSameSeedAgainCreatesNothing() throws {
        let fixture = try StoreFixture()
        let workflow = fixture.workflow()
        _ = try workflow.simulate(SimulationRequest(templateID: TemplateFixture.sampleID, count: 2, seed: 5, submit: false))
        XCTAssertThrowsError(try workflow.simulate(SimulationRequest(templateID: TemplateFixture.sampleID, count: 3, seed: 5, submit: false))) { error in
            XCTAssertEqual(error as? SimulationError, .nameTaken("sim-5-1"))
        }
        XCTAssertEqual(try fixture.store.list(.incomplete, user: "ana").forms.count, 2)
    }

    func testSimulateRefusesACountOutOfRange() throws {
        let fixture = try StoreFixture()
        for count in [0, -1, 10_001] {
            XCTAssertThrowsError(try fixture.workflow().simulate(SimulationRequest(templateID: TemplateFixture.sampleID, count: count, seed: 1, submit: false))) { error in
                XCTAssertEqual(error as? SimulationError, .countOutOfRange(count))
                XCTAssertEqual((error as? ClassifiedError)?.failureClass, .usage)
            }
        }
    }

    func testIncompleteSimulatedFormsStayWithinTheExpiryPeriod() throws {
        let fixture = try StoreFixture()
        let forms = try fixture.workflow().simulate(SimulationRequest(templateID: TemplateFixture.sampleID, count: 30, seed: 11, submit: false))
        let limit = TestClock.start.addingTimeInterval(-Double(fixture.configuration.expiryDays) * 86_400)
        XCTAssertTrue(forms.allSatisfy { $0.createdAt > limit && $0.status == .incomplete })
    }
}
