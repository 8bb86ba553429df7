import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// `MMSEScorer`: each automatic item right and wrong, the serial sevens judged against the
/// previous answer, names written freely, and the items left to an examiner.
final class MMSEScorerTests: XCTestCase {
    /// Wednesday 4 March 2026, 23:30 UTC: already Thursday 5 March in Madrid.
    private let createdAt = Date(timeIntervalSince1970: 1_772_667_000)

    private func sheet(_ answers: [String: AnswerValue], timeZone: String? = nil, comments: [String] = []) throws -> ScoreSheet {
        var form = Form(name: "mmse-1", user: "ana", template: try TemplateFixture.sample("mmse"), createdAt: createdAt)
        form.timeZone = timeZone
        for (question, value) in answers { form.answers[question] = Answer(value: value) }
        for question in comments { form.answers[question] = Answer(comment: "No contesta") }
        return try XCTUnwrap(form.scores)
    }

    private func item(_ sheet: ScoreSheet, _ question: String) throws -> ScoreItem {
        try XCTUnwrap(sheet.items.first { $0.question == question }, question)
    }

    private func result(_ question: String, _ value: AnswerValue, timeZone: String? = nil) throws -> ScoreItem.Result {
        try item(try sheet([question: value], timeZone: timeZone), question).result
    }

    func testAllCorrectGivesElevenOfEleven() throws {
        let sheet = try sheet([
            "timeQuestionWeekDay": .text("miércoles"), "timeQuestionYear": .number(2026), "timeQuestionMonth": .text("marzo"),
            "timeQuestionDay": .number(4), "concentrationQuestionOne": .number(93), "concentrationQuestionTwo": .number(86),
            "concentrationQuestionThree": .number(79), "concentrationQuestionFour": .number(72),
            "concentrationQuestionFive": .number(65), "watchImageQuestion": .text("reloj"),
            "pencilImageQuestion": .text("bolígrafo"), "spaceQuestionCountry": .text("México"),
        ])
        XCTAssertEqual(sheet.values, [ScoreEntry("mmse.automatic", .number(11)), ScoreEntry("mmse.automaticMax", .number(11))])
        XCTAssertEqual(sheet.items.map(\.question), try TemplateFixture.sample("mmse").questions.map(\.id))
        XCTAssertEqual(sheet.items.filter { $0.result == .correct }.count, 11)
        // Answered or not, what a program cannot check is left to an examiner.
        let examiner = sheet.items.filter { $0.result == .examiner }
        XCTAssertEqual(examiner.map(\.question), ["spaceQuestionCountry", "spaceQuestionArea", "spaceQuestionLocality",
                                                  "letterQuestion", "memoryQuestion"])
        XCTAssertTrue(examiner.allSatisfy { $0.points == nil })
        let note = try XCTUnwrap(sheet.note)
        XCTAssertTrue(note.contains("Not a full 30-point MMSE"), note)
        XCTAssertTrue(note.contains("spaceQuestionCountry, spaceQuestionArea, spaceQuestionLocality, letterQuestion, memoryQuestion"), note)
    }

    func testNothingAnsweredIsZeroWithEveryItemUnanswered() throws {
        let sheet = try sheet([:], comments: ["timeQuestionYear"])
        XCTAssertEqual(sheet["mmse.automatic"], .number(0))
        XCTAssertEqual(sheet["mmse.automaticMax"], .number(11))
        XCTAssertEqual(sheet.items.filter { $0.result == .unanswered }.count, 11)
        XCTAssertEqual(try item(sheet, "timeQuestionYear").expected, "2026")
        XCTAssertEqual(try item(sheet, "concentrationQuestionFive").expected, "65")
    }

    func testWeekDayInSpanishOrEnglishIgnoringCaseAccentsAndSpaces() throws {
        for answer in ["miércoles", "Miercoles", "  MIÉRCOLES ", "Wednesday", "wednesday."] {
            XCTAssertEqual(try result("timeQuestionWeekDay", .text(answer)), .correct, answer)
        }
        for answer in ["jueves", "martes", "mier", "miércoles 4"] {
            XCTAssertEqual(try result("timeQuestionWeekDay", .text(answer)), .incorrect, answer)
        }
        XCTAssertEqual(try item(try sheet([:]), "timeQuestionWeekDay").expected, "miércoles")
    }

    func testDatesAreJudgedInTheFormsTimeZone() throws {
        let madrid = try sheet(["timeQuestionWeekDay": .text("jueves"), "timeQuestionDay": .number(5),
                                "timeQuestionMonth": .text("marzo"), "timeQuestionYear": .number(2026)],
                               timeZone: "Europe/Madrid")
        XCTAssertEqual(madrid["mmse.automatic"], .number(4))
        XCTAssertEqual(try result("timeQuestionDay", .number(4), timeZone: "America/Mexico_City"), .correct)
        XCTAssertEqual(try result("timeQuestionDay", .number(5), timeZone: "America/Mexico_City"), .incorrect)
        // An unknown zone falls back to UTC, the form's recorded default.
        XCTAssertEqual(try result("timeQuestionDay", .number(4), timeZone: "Nowhere/Atlantis"), .correct)
    }

    func testYearAndDayRightAndWrong() throws {
        XCTAssertEqual(try result("timeQuestionYear", .number(2026)), .correct)
        XCTAssertEqual(try result("timeQuestionYear", .number(2025)), .incorrect)
        XCTAssertEqual(try result("timeQuestionDay", .number(4)), .correct)
        XCTAssertEqual(try result("timeQuestionDay", .number(3)), .incorrect)
    }

    func testMonthByNameInEitherLanguageOrNumber() throws {
        for answer: AnswerValue in [.text("marzo"), .text("MARZO "), .text("March"), .text("3"), .text("03"), .number(3)] {
            XCTAssertEqual(try result("timeQuestionMonth", answer), .correct, "\(answer)")
        }
        for answer: AnswerValue in [.text("abril"), .text("4"), .number(4), .text("mar")] {
            XCTAssertEqual(try result("timeQuestionMonth", answer), .incorrect, "\(answer)")
        }
    }

    func testSerialSevensJudgeEachAgainstThePreviousAnswer() throws {
        // An early slip (92 for 93) costs one point: 85, 78, 71, 64 each follow from it.
        let slip = try sheet(["concentrationQuestionOne": .number(92), "concentrationQuestionTwo": .number(85),
                              "concentrationQuestionThree": .number(78), "concentrationQuestionFour": .number(71),
                              "concentrationQuestionFive": .number(64)])
        XCTAssertEqual(try MMSEScorer.serialSevens.map { try item(slip, $0).result },
                       [.incorrect, .correct, .correct, .correct, .correct])
        XCTAssertEqual(try item(slip, "concentrationQuestionThree").expected, "78")
        XCTAssertEqual(slip["mmse.automatic"], .number(4))

        // Continuing the true chain after a slip is wrong once: 86 is not 92 − 7.
        let chain = try sheet(["concentrationQuestionOne": .number(92), "concentrationQuestionTwo": .number(86),
                               "concentrationQuestionThree": .number(79)])
        XCTAssertEqual(try item(chain, "concentrationQuestionTwo").result, .incorrect)
        XCTAssertEqual(try item(chain, "concentrationQuestionThree").result, .correct)
    }

    func testSerialSevensAfterAnUnansweredItemExpectTheChainValue() throws {
        let sheet = try sheet(["concentrationQuestionOne": .number(93), "concentrationQuestionThree": .number(79),
                               "concentrationQuestionFour": .number(72)],
                              comments: ["concentrationQuestionTwo"])
        XCTAssertEqual(try item(sheet, "concentrationQuestionTwo").result, .unanswered)
        XCTAssertEqual(try item(sheet, "concentrationQuestionThree").result, .correct)
        XCTAssertEqual(try item(sheet, "concentrationQuestionFour").result, .correct)
        XCTAssertEqual(try item(sheet, "concentrationQuestionFive").result, .unanswered)
        XCTAssertEqual(try item(sheet, "concentrationQuestionFive").expected, "65")
    }

    func testNamingIgnoresCaseAccentsAndALeadingArticle() throws {
        for answer in ["reloj", "Reloj", " RELOJ ", "un reloj", "El reloj.", "réloj"] {
            XCTAssertEqual(try result("watchImageQuestion", .text(answer)), .correct, answer)
        }
        for answer in ["bolígrafo", "BOLIGRAFO", "una pluma", "el lapicero", "Bolígrafo ", "la pluma"] {
            XCTAssertEqual(try result("pencilImageQuestion", .text(answer)), .correct, answer)
        }
        for (question, answer) in [("watchImageQuestion", "pluma"), ("watchImageQuestion", "relojes"),
                                   ("watchImageQuestion", "un"), ("pencilImageQuestion", "reloj"),
                                   ("pencilImageQuestion", "lápiz"), ("pencilImageQuestion", "los bolígrafo")] {
            XCTAssertEqual(try result(question, .text(answer)), .incorrect, answer)
        }
        XCTAssertEqual(try item(try sheet([:]), "pencilImageQuestion").expected, "bolígrafo")
    }
}
