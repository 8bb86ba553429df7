import Foundation
import MIKit
import TestSupport
import XCTest

/// Scores through the real `mi`: every hand-worked IPAQ case answered with `mi answer` and read
/// back from `mi review --json` and its text, and the MMSE's automatic items judged against the
/// form's own date.
final class ScoringTests: XCTestCase {
    private func review(_ sandbox: Sandbox, _ name: String) throws -> [String: Any] {
        let result = try sandbox.run(["review", name, "--json"])
        XCTAssertEqual(result.status, 0, result.output)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    /// `{"firstQuestionVigorous": 3, "thirdQuestionModerate": {"comment": "No sé"}, …}`.
    private func answersFile(_ answers: [String: Int?]) throws -> String {
        let object = answers.mapValues { value -> Any in value.map { $0 as Any } ?? ["comment": "No sé"] }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private func assertScores(_ scores: [String: Any], equal expected: [String: ScoreValue], _ name: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(scores.keys), Set(expected.keys), name, file: file, line: line)
        for (key, value) in expected {
            switch value {
            case .number(let number):
                XCTAssertEqual((scores[key] as? NSNumber)?.doubleValue, number, "\(name): \(key)", file: file, line: line)
            case .text(let text):
                XCTAssertEqual(scores[key] as? String, text, "\(name): \(key)", file: file, line: line)
            }
        }
    }

    func testEveryHandWorkedIPAQCaseThroughMiAnswerAndReview() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        for (index, ipaqCase) in IPAQCases.all.enumerated() {
            // The template is once per user: each case's form is deleted before the next.
            let name = try sandbox.newForm("ipaq", name: "ipaq-\(index + 1)")
            let answered = try sandbox.run(["answer", name, "--file", "-", "--accept-consent"],
                                           stdin: try answersFile(ipaqCase.answers))
            if ipaqCase.formAccepts {
                XCTAssertEqual(answered.status, 0, "\(ipaqCase.name): \(answered.output)")
                let json = try review(sandbox, name)
                assertScores(try XCTUnwrap(json["scores"] as? [String: Any], ipaqCase.name), equal: ipaqCase.expected, ipaqCase.name)
                XCTAssertEqual((json["scoreItems"] as? [Any])?.count, 0, ipaqCase.name)

                let text = try sandbox.run(["review", name])
                XCTAssertEqual(text.status, 0, text.output)
                let category = try XCTUnwrap(ipaqCase.expected["ipaq.category"]?.display)
                XCTAssertTrue(text.stdout.contains("Scores (ipaq-short):"), text.stdout)
                XCTAssertNotNil(text.stdout.range(of: #"\n  ipaq\.category +\#(category)\n"#, options: .regularExpression),
                                "\(ipaqCase.name): \(text.stdout)")
                if let total = ipaqCase.expected["ipaq.totalMET"]?.display {
                    XCTAssertNotNil(text.stdout.range(of: #"\n  ipaq\.totalMET +\#(NSRegularExpression.escapedPattern(for: total))\n"#,
                                                      options: .regularExpression), "\(ipaqCase.name): \(text.stdout)")
                }
            } else {
                // The form refuses what the scorer would exclude; nothing is saved.
                XCTAssertEqual(answered.status, 65, "\(ipaqCase.name): \(answered.output)")
                let json = try review(sandbox, name)
                let scores = try XCTUnwrap(json["scores"] as? [String: Any], ipaqCase.name)
                XCTAssertEqual(scores["ipaq.excludedBecause"] as? String, "missing answer: firstQuestionVigorous", ipaqCase.name)
            }
            let deleted = try sandbox.run(["delete", name])
            XCTAssertEqual(deleted.status, 0, deleted.output)
        }
    }

    func testMMSEAutomaticItemsAreJudgedAgainstTheFormsDate() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let created = try sandbox.run(["new", "mmse", "--name", "mmse-1", "--json"], environment: ["TZ": "America/Mexico_City"])
        XCTAssertEqual(created.status, 0, created.output)
        let form = try sandbox.formJSON("mmse-1")
        let zoneName = try XCTUnwrap(form["timeZone"] as? String)
        XCTAssertEqual(zoneName, "America/Mexico_City")
        let createdAt = try XCTUnwrap(ISO8601DateFormatter().date(from: try XCTUnwrap(form["createdAt"] as? String)))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: zoneName))
        let date = calendar.dateComponents([.year, .month, .day, .weekday], from: createdAt)
        let weekdays = ["Domingo", "Lunes", "Martes", "Miércoles", "Jueves", "Viernes", "Sábado"]
        let day = try XCTUnwrap(date.day), month = try XCTUnwrap(date.month)

        // Right: the week day (capitalised), the year, the month as a number, the watch with an
        // article. Wrong: the day of the month, the pen. Serial sevens slip once, first: 92,
        // then each answer 7 below the previous, so four of five.
        let answers: [String: Any] = [
            "timeQuestionWeekDay": weekdays[try XCTUnwrap(date.weekday) - 1], "timeQuestionYear": try XCTUnwrap(date.year),
            "timeQuestionMonth": String(month), "timeQuestionDay": day == 1 ? 2 : day - 1,
            "concentrationQuestionOne": 92, "concentrationQuestionTwo": 85, "concentrationQuestionThree": 78,
            "concentrationQuestionFour": 71, "concentrationQuestionFive": 64,
            "watchImageQuestion": "Un RELOJ", "pencilImageQuestion": "lápiz", "spaceQuestionCountry": "México",
        ]
        let file = String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
        let answered = try sandbox.run(["answer", "mmse-1", "--file", "-", "--accept-consent"], stdin: file)
        XCTAssertEqual(answered.status, 0, answered.output)

        let json = try review(sandbox, "mmse-1")
        assertScores(try XCTUnwrap(json["scores"] as? [String: Any]),
                     equal: ["mmse.automatic": .number(8), "mmse.automaticMax": .number(11)], "mmse")
        let items = try XCTUnwrap(json["scoreItems"] as? [[String: Any]])
        let results = Dictionary(uniqueKeysWithValues: items.compactMap { item -> (String, String)? in
            guard let question = item["question"] as? String, let result = item["result"] as? String else { return nil }
            return (question, result)
        })
        XCTAssertEqual(results, [
            "timeQuestionWeekDay": "correct", "timeQuestionYear": "correct", "timeQuestionMonth": "correct",
            "timeQuestionDay": "incorrect", "spaceQuestionCountry": "examiner", "spaceQuestionArea": "examiner",
            "spaceQuestionLocality": "examiner", "concentrationQuestionOne": "incorrect",
            "concentrationQuestionTwo": "correct", "concentrationQuestionThree": "correct",
            "concentrationQuestionFour": "correct", "concentrationQuestionFive": "correct",
            "watchImageQuestion": "correct", "pencilImageQuestion": "incorrect", "letterQuestion": "examiner",
            "memoryQuestion": "examiner",
        ])
        let dayItem = try XCTUnwrap(items.first { $0["question"] as? String == "timeQuestionDay" })
        XCTAssertEqual(dayItem["expected"] as? String, String(day))
        XCTAssertEqual(dayItem["points"] as? Int, 0)
        let note = try XCTUnwrap(json["scoreNote"] as? String)
        XCTAssertTrue(note.hasPrefix("Not a full 30-point MMSE"), note)

        let text = try sandbox.run(["review", "mmse-1"])
        XCTAssertEqual(text.status, 0, text.output)
        XCTAssertTrue(text.stdout.contains("Scores (mmse):"), text.stdout)
        XCTAssertNotNil(text.stdout.range(of: #"\n  mmse\.automatic +8\n"#, options: .regularExpression), text.stdout)
        XCTAssertNotNil(text.stdout.range(of: #"pencilImageQuestion +incorrect, 0/1 \(expected bolígrafo\)"#,
                                          options: .regularExpression), text.stdout)
        XCTAssertTrue(text.stdout.contains("Not a full 30-point MMSE"), text.stdout)
    }

    func testATemplateWithoutAScorerHasNoScores() throws {
        let sandbox = try Sandbox()
        try sandbox.importSamples()
        let name = try sandbox.newForm()
        let json = try review(sandbox, name)
        XCTAssertNil(json["scores"])
        XCTAssertNil(json["scoreItems"])
        XCTAssertNil(json["scoreNote"])
        let text = try sandbox.run(["review", name])
        XCTAssertFalse(text.stdout.contains("Scores ("), text.stdout)
    }
}
