import Foundation
@testable import MIKit
import TestSupport
import XCTest

/// The template keys of the study questionnaires — `scoring`, `oncePerUser`, `consent` and a
/// question's `image` — read, refused when wrong with the key named, written back, and renamed.
final class TemplateClinicalKeysTests: XCTestCase {
    private func template(_ extra: String, question: String = #"{"id": "q", "type": "shortAnswer", "text": "Q"}"#,
                          keys: TemplateKeys = .default) throws -> Template {
        try TemplateCoding(keys: keys).decode(Data(#"{"id": "t", "title": "T", "version": 1, \#(extra) "questions": [\#(question)]}"#.utf8),
                                              source: "t.json")
    }

    private func problems(_ extra: String, question: String = #"{"id": "q", "type": "shortAnswer", "text": "Q"}"#)
        -> [TemplateError.Problem] {
        do {
            _ = try template(extra, question: question)
            XCTFail("accepted: \(extra) \(question)")
            return []
        } catch let error as TemplateError {
            return error.problems
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    func testTheKeysAreReadAndWrittenBack() throws {
        let read = try template(#""oncePerUser": true, "consent": "Acepto.\nDe verdad.", "#,
                                question: #"{"id": "q", "type": "shortAnswer", "text": "Q", "image": "reloj.PNG"}"#)
        XCTAssertTrue(read.oncePerUser)
        XCTAssertEqual(read.consent, "Acepto.\nDe verdad.")
        XCTAssertEqual(read.questions.first?.image, "reloj.PNG")
        XCTAssertEqual(read.files, ["reloj.PNG"])
        XCTAssertEqual(read.consentDigest, FileDigest.sha256(of: Data("Acepto.\nDe verdad.".utf8)))
        let again = try TemplateCoding().decode(try TemplateCoding().encodeData(read), source: "again")
        XCTAssertEqual(again, read)
        // A template without them writes none of them: older templates keep their exact copy.
        let plain = try template("")
        guard case .object(let object) = TemplateCoding().encode(plain) else { return XCTFail("not an object") }
        XCTAssertEqual(Set(object.keys), ["id", "title", "version", "questions"])
    }

    func testEveryShippedScoredTemplateNamesItsScorer() throws {
        XCTAssertEqual(try TemplateFixture.sample("ipaq").scoring, .ipaqShort)
        XCTAssertEqual(try TemplateFixture.sample("mmse").scoring, .mmse)
        XCTAssertNil(try TemplateFixture.sample("medical-history").scoring)
        for id in ["ipaq", "mmse", "medical-history"] {
            let sample = try TemplateFixture.sample(id)
            XCTAssertTrue(sample.oncePerUser, id)
            XCTAssertNotNil(sample.consent, id)
        }
    }

    func testWrongValuesAreRefusedNamingTheKey() {
        XCTAssertEqual(problems(#""scoring": "phq-9", "#).map(\.field), ["scoring"])
        XCTAssertTrue(problems(#""scoring": "phq-9", "#).first?.message.contains(#"known: "ipaq-short", "mmse""#) == true)
        XCTAssertEqual(problems(#""oncePerUser": "yes", "#).map(\.field), ["oncePerUser"])
        XCTAssertEqual(problems(#""consent": "  ", "#).map(\.field), ["consent"])
        XCTAssertEqual(problems(#""consent": "a\u001b[2Jb", "#).map(\.field), ["consent"])
        XCTAssertEqual(problems(#""consent": 3, "#).map(\.field), ["consent"])
        for image in [#""reloj.gif""#, #""../reloj.png""#, #""""#, "7"] {
            let found = problems("", question: #"{"id": "q", "type": "shortAnswer", "text": "Q", "image": \#(image)}"#)
            XCTAssertEqual(found.map(\.field), ["image"], image)
            XCTAssertEqual(found.map(\.question), ["q"], image)
        }
    }

    func testAScorerNeedsItsQuestionsOfTheRightType() {
        let missing = problems(#""scoring": "ipaq-short", "#)
        XCTAssertEqual(Set(missing.compactMap(\.question)), Set(IPAQShort.questionIDs))
        XCTAssertTrue(missing.allSatisfy { $0.field == "scoring" && $0.message.contains("needs a question with this id") })
        let wrongType = problems(#""scoring": "mmse", "#, question: #"{"id": "timeQuestionYear", "type": "shortAnswer", "text": "Año"}"#)
        XCTAssertTrue(wrongType.contains { $0.question == "timeQuestionYear" && $0.message.contains("a whole-number numeric question") },
                      "\(wrongType)")
    }

    func testTheKeysCanBeRenamed() throws {
        let keys = TemplateKeys(names: [.scoring: "puntuacion", .oncePerUser: "unaVez", .consent: "consentimiento", .image: "imagen"])
        let read = try template(#""unaVez": true, "consentimiento": "Acepto.", "#,
                                question: #"{"id": "q", "type": "shortAnswer", "text": "Q", "imagen": "pluma.jpg"}"#, keys: keys)
        XCTAssertTrue(read.oncePerUser)
        XCTAssertEqual(read.consent, "Acepto.")
        XCTAssertEqual(read.questions.first?.image, "pluma.jpg")
        guard case .object(let object) = TemplateCoding(keys: keys).encode(read) else { return XCTFail("not an object") }
        XCTAssertNotNil(object["consentimiento"])
        XCTAssertNil(object["consent"])
    }
}
