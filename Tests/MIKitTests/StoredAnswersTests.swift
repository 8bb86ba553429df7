import Foundation
@testable import MIKit
import XCTest

/// `Form.checkStoredAnswers`: the rule mi-server applies to an uploaded form.json, checked here
/// type by type against the form's own template copy.
final class StoredAnswersTests: XCTestCase {
    static let template = #"""
        {"id": "hydrant", "title": "Hydrant", "version": 1, "questions": [
          {"id": "intro", "type": "note", "text": "Open the cap slowly."},
          {"id": "serviced", "type": "date", "text": "Last service", "max": "2026-12-31"},
          {"id": "arrived", "type": "time", "text": "Arrival"},
          {"id": "tested", "type": "dateTime", "text": "Flow test"},
          {"id": "flow", "type": "range", "text": "Flow rating", "start": 1, "end": 5, "step": 1},
          {"id": "site", "type": "geopoint", "text": "Where", "minAccuracy": 10},
          {"id": "tag", "type": "barcode", "text": "Tag"},
          {"id": "outlet", "type": "photo", "text": "Outlet"},
          {"id": "leaks", "type": "multipleChoice", "text": "Leaks", "options": ["seal", "drain"], "Max-answers": 2},
          {"id": "ok", "type": "trueFalse", "text": "OK?"},
          {"id": "days", "type": "numeric", "text": "Days", "integer": true, "min": 0, "max": 7}
        ]}
        """#

    func form(_ answers: [String: Answer]) throws -> Form {
        let template = try TemplateCoding(keys: .default).decode(Data(Self.template.utf8), source: "hydrant.json")
        var form = Form(id: FormID(), name: "h-1", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 1_795_651_200))
        form.timeZone = "America/Mexico_City"
        form.answers = answers
        return form
    }

    /// The message `checkStoredAnswers` refuses `answers` with.
    func refusal(_ answers: [String: Answer], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        do {
            try form(answers).checkStoredAnswers()
            XCTFail("accepted \(answers)", file: file, line: line)
            return ""
        } catch let error as AnswerError {
            return error.errorDescription ?? ""
        }
    }

    func testValuesMIStoresPass() throws {
        let point = try Geopoint(json: .object(["latitude": .number(19.4326), "longitude": .number(-99.1332), "accuracy": .number(4)]))
        try form([
            "intro": Answer(),
            "serviced": Answer(value: .text("2026-11-20")),
            "arrived": Answer(value: .text("08:15")),
            "tested": Answer(value: .text("2026-11-20T10:00:00-06:00")),
            "flow": Answer(value: .number(4)),
            "site": Answer(value: .location(point)),
            "tag": Answer(value: .text("HY-00417")),
            "outlet": Answer(comment: "no camera", media: ["Qid8(1).jpg"]),
            "leaks": Answer(value: .choices(["seal", "drain"])),
            "ok": Answer(value: .bool(true)),
            "days": Answer(value: .number(3)),
        ]).checkStoredAnswers()
    }

    /// A number outside its question's bounds is kept: the scorers have rules for such values
    /// (IPAQ's days over 7), and the server scores what it received.
    func testANumberOutsideItsBoundsIsKept() throws {
        try form(["days": Answer(value: .number(8))]).checkStoredAnswers()
        try form(["days": Answer(value: .number(2.5))]).checkStoredAnswers()
    }

    func testEachBadValueIsRefusedNamingItsQuestion() throws {
        let far = try Geopoint(json: .object(["latitude": .number(19.4), "longitude": .number(-99.1), "accuracy": .number(50)]))
        let cases: [(String, Answer, String)] = [
            ("intro", Answer(value: .text("read")), "question intro (1 of 11): this is a note"),
            ("intro", Answer(comment: "seen"), "question intro (1 of 11): this is a note"),
            ("intro", Answer(media: ["Qid1(1).jpg"]), "question intro (1 of 11): this is a note"),
            ("serviced", Answer(value: .text("2026-02-30")), "question serviced (2 of 11)"),
            ("serviced", Answer(value: .text("2027-01-01")), "question serviced (2 of 11)"),
            ("serviced", Answer(value: .text("today")), "question serviced (2 of 11): the stored value \"today\" is not one MI stores"),
            ("serviced", Answer(value: .number(3)), "question serviced (2 of 11)"),
            ("arrived", Answer(value: .text("25:00")), "question arrived (3 of 11)"),
            ("tested", Answer(value: .text("2026-11-20T25:00")), "question tested (4 of 11)"),
            ("flow", Answer(value: .number(2.5)), "question flow (5 of 11)"),
            ("flow", Answer(value: .number(6)), "question flow (5 of 11)"),
            ("site", Answer(value: .text("here")), "question site (6 of 11)"),
            ("site", Answer(value: .location(far)), "question site (6 of 11)"),
            ("tag", Answer(value: .text("")), "question tag (7 of 11): the code is empty"),
            ("outlet", Answer(value: .text("gauge.jpg"), media: ["Qid8(1).jpg"]), "question outlet (8 of 11): a photo question takes no typed value"),
            ("outlet", Answer(media: ["Qid8(1).jpg", "Qid8(2).jpg"]), "question outlet (8 of 11)"),
            ("outlet", Answer(media: ["Qid8(1).ogg"]), "question outlet (8 of 11)"),
            ("leaks", Answer(value: .choices(["rust"])), "question leaks (9 of 11)"),
            ("ok", Answer(value: .text("maybe")), "question ok (10 of 11)"),
            ("days", Answer(value: .text("eight")), "question days (11 of 11)"),
        ]
        for (id, answer, message) in cases {
            let refused = try refusal([id: answer])
            XCTAssertTrue(refused.hasPrefix(message), "\(id) \(answer): \(refused)")
        }
    }
}
