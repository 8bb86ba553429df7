import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// `IPAQShort`: the hand-worked table of `IPAQCases`, and the answers a form.json written
/// elsewhere may hold.
final class IPAQShortTests: XCTestCase {
    private func form(_ answers: [String: Answer] = [:]) throws -> Form {
        var form = Form(name: "ipaq-1", user: "ana", template: try TemplateFixture.sample("ipaq"),
                        createdAt: Date(timeIntervalSince1970: 1_772_667_000))
        form.answers = answers
        return form
    }

    private func values(_ form: Form) throws -> [String: ScoreValue] {
        let sheet = try XCTUnwrap(form.scores)
        XCTAssertEqual(sheet.scoring, .ipaqShort)
        return Dictionary(sheet.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    func testEveryHandWorkedCase() throws {
        let blank = try form()
        for ipaqCase in IPAQCases.all {
            let sheet = try XCTUnwrap(ipaqCase.applied(to: blank).scores)
            let values = Dictionary(sheet.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            XCTAssertEqual(values, ipaqCase.expected, ipaqCase.name)
            XCTAssertEqual(sheet.values.count, values.count, "\(ipaqCase.name): a key twice")
            // The sheet's order is the declared one, which export columns follow.
            let declared = ScoreSheet.keys(of: .ipaqShort)
            XCTAssertEqual(sheet.values.map(\.key), declared.filter { values[$0] != nil }, ipaqCase.name)
        }
    }

    func testTheTableCoversEveryCategoryAndRule() {
        XCTAssertGreaterThanOrEqual(IPAQCases.all.count, 14)
        let categories = Set(IPAQCases.all.compactMap { $0.expected["ipaq.category"]?.display })
        XCTAssertEqual(categories, ["high", "moderate", "low", "excluded"])
        for total in [600.0, 1500, 3000, 599.9, 1499.9, 2999.9] {
            XCTAssertTrue(IPAQCases.all.contains { $0.expected["ipaq.totalMET"] == .number(total) }, "no case at \(total)")
        }
        XCTAssertEqual(Set(IPAQCases.all.map(\.name)).count, IPAQCases.all.count, "case names are unique")
    }

    func testMETMinutesAreExactTenths() throws {
        // 3.3 × 11 × 3 in Double is 108.89999999999999; tenths give 1089 / 10, the Double nearest 108.9.
        XCTAssertNotEqual(3.3 * 11 * 3, 108.9)
        let values = try values(try form(activity((0, 0), (0, 0), (3, 11))))
        XCTAssertEqual(values["ipaq.walkingMET"], .number(108.9))
        XCTAssertEqual(values["ipaq.totalMET"], .number(108.9))
    }

    private func activity(_ v: (Double, Double), _ m: (Double, Double), _ w: (Double, Double)) -> [String: Answer] {
        [IPAQCases.vigorousDays: Answer(value: .number(v.0)), IPAQCases.vigorousMinutes: Answer(value: .number(v.1)),
         IPAQCases.moderateDays: Answer(value: .number(m.0)), IPAQCases.moderateMinutes: Answer(value: .number(m.1)),
         IPAQCases.walkingDays: Answer(value: .number(w.0)), IPAQCases.walkingMinutes: Answer(value: .number(w.1))]
    }

    func testAMissingAnswerIsNamedBeforeADayOutOfRange() throws {
        var answers = activity((9, 30), (0, 0), (1, 30))
        answers[IPAQCases.walkingMinutes] = nil
        XCTAssertEqual(try values(try form(answers))["ipaq.excludedBecause"], .text("missing answer: sixthQuestionWalk"))
    }

    func testOddValuesFromElsewhereAreExcludedNamingTheQuestion() throws {
        let cases: [([String: Answer], String)] = [
            (activity((2.5, 30), (0, 0), (0, 0)), "not a whole number: firstQuestionVigorous is 2.5"),
            (activity((-1, 30), (0, 0), (0, 0)), "days outside 0–7: firstQuestionVigorous is -1"),
            (activity((1, 30), (1, -20), (0, 0)), "negative minutes: fourthQuestionModerate is -20"),
            (activity((1, 30), (1, .infinity), (0, 0)), "not a whole number: fourthQuestionModerate is inf"),
            (activity((1, 1e300), (0, 0), (0, 0)),
             "more than 960 minutes of activity a day: secondQuestionVigorous + fourthQuestionModerate + sixthQuestionWalk = 1e+300"),
            (activity((1, 30), (0, 0), (0, 0)).merging([IPAQCases.walkingDays: Answer(value: .text("dos"))]) { $1 },
             "not a number: fifthQuestionWalk"),
        ]
        for (answers, reason) in cases {
            let values = try values(try form(answers))
            XCTAssertEqual(values, ["ipaq.category": .text("excluded"), "ipaq.excludedBecause": .text(reason)], reason)
        }
    }

    func testSittingIsReportedOnlyWhenAnswered() throws {
        var answers = activity((0, 0), (0, 0), (0, 0))
        answers[IPAQCases.sittingMinutes] = Answer(comment: "No sé")
        XCTAssertNil(try values(try form(answers))["ipaq.sittingMinutes"])
        answers[IPAQCases.sittingMinutes] = Answer(value: .number(1440))
        XCTAssertEqual(try values(try form(answers))["ipaq.sittingMinutes"], .number(1440))
    }

    func testEveryProducedKeyIsDeclared() {
        let declared = Set(ScoreSheet.keys(of: .ipaqShort))
        for ipaqCase in IPAQCases.all { XCTAssertTrue(Set(ipaqCase.expected.keys).isSubset(of: declared), ipaqCase.name) }
    }
}
