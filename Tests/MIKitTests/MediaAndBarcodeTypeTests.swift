import Foundation
import MIKit
import XCTest

/// `barcode`, `photo`, `audio`, `video` in their own files: keys, answers, the answer-or-comment
/// rule counting attached files, media checks, CSV, tally, simulation and presentation.
final class MediaAndBarcodeTypeTests: XCTestCase {
    static let json = #"""
        {"id": "t", "title": "T", "version": 1, "questions": [
          {"id": "tag", "type": "barcode", "text": "Tag"},
          {"id": "outlet", "type": "photo", "text": "Outlet"},
          {"id": "sound", "type": "audio", "text": "Sound", "maxFiles": 2},
          {"id": "clip", "type": "video", "text": "Clip"}
        ]}
        """#

    func template() throws -> Template { try TemplateCoding().decode(Data(Self.json.utf8), source: "t.json") }

    func testTheTypesDecodeEncodeAndRefuseBadMaxFiles() throws {
        let template = try template()
        XCTAssertEqual(template.questions.map(\.kind), [.barcode, .photo(), .audio(maxFiles: 2), .video()])
        XCTAssertEqual(template.questions.map(\.typeDescription),
                       ["barcode or QR code", "photo (one file)", "audio (up to 2 files)", "video (one file)"])
        let coding = TemplateCoding()
        XCTAssertEqual(try coding.decode(coding.encode(template), source: "again"), template)
        // The office editor asks maxFiles as a whole number (a line of text would write a string).
        for type in [PhotoQuestion.self, AudioQuestion.self, VideoQuestion.self] as [any MediaQuestion.Type] {
            XCTAssertEqual(type.editorFields, [EditorField(.maxFiles, .wholeNumber, "Files at most", placeholder: "1")])
        }
        XCTAssertEqual(BarcodeQuestion.editorFields, [])
        for (bad, message) in [(#""maxFiles": 0"#, "expected a whole number from 1 to 1000, found 0"),
                               (#""maxFiles": 1.5"#, "expected a whole number from 1 to 1000, found 1.5"),
                               (#""maxFiles": "two""#, "expected a whole number of at least 1, found a string")] {
            let text = Self.json.replacingOccurrences(of: #""maxFiles": 2"#, with: bad)
            XCTAssertThrowsError(try coding.decode(Data(text.utf8), source: "t.json"), bad) { error in
                XCTAssertTrue(error.localizedDescription.contains(#"question sound, field "maxFiles": \#(message)"#), error.localizedDescription)
            }
        }
    }

    func testABarcodeIsOneTrimmedLine() throws {
        let template = try template()
        let rules = AnswerRules(question: template.questions[0], position: 1, count: 4)
        XCTAssertEqual(try rules.value(fromLine: "  PUMP-7731 \r\n"), .text("PUMP-7731"))
        XCTAssertEqual(try rules.value(fromJSON: .string("MI-HYD-00042")), .text("MI-HYD-00042"))
        XCTAssertThrowsError(try rules.value(fromLine: "   ")) { error in
            XCTAssertTrue(error.localizedDescription.hasPrefix("question tag (1 of 4): the code is empty"), error.localizedDescription)
        }
        XCTAssertThrowsError(try rules.value(fromJSON: .number(42))) { error in
            XCTAssertEqual(error.localizedDescription, "question tag (1 of 4): expected the code as text, found a number — nothing was saved")
        }
        XCTAssertThrowsError(try rules.value(fromLine: String(repeating: "7", count: 4297)))
        // A scanner's Tab inside the code is a control character: refused by the text rule.
        XCTAssertThrowsError(try TextRules.check(try rules.value(fromLine: "A\tB"), field: "answer to tag"))
        let type = BarcodeQuestion()
        XCTAssertEqual(type.tally, .texts)
        XCTAssertEqual(type.searchText(.text("PUMP-7731")), "PUMP-7731")
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            let code = try XCTUnwrap(type.simulatedValue(&generator)?.stringValue)
            XCTAssertNotNil(code.range(of: #"^(HYD|PMP|VLV|MTR|TNK)-\d{5}(-[ABC])?$"#, options: .regularExpression), code)
        }
    }

    func testTheAttachedFileIsTheAnswer() throws {
        let template = try template()
        var form = Form(name: "f", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 0))
        let outlet = template.questions[1]
        XCTAssertFalse(form.isDone(outlet))
        form.answers["outlet"] = Answer(media: ["Qid1(1).jpg"])
        XCTAssertTrue(form.isDone(outlet), "the photo is the answer")
        form.answers["clip"] = Answer(media: ["Qid3(1).jpg"])
        XCTAssertFalse(form.isDone(template.questions[3]), "a photo does not answer a video question")
        form.answers["clip"] = Answer(comment: "no camera")
        XCTAssertTrue(form.isDone(template.questions[3]), "a comment instead, as the seed's rule has it")
        XCTAssertEqual(form.openQuestions.map(\.id), ["tag", "sound"])

        let rules = AnswerRules(question: outlet, position: 2, count: 4)
        XCTAssertThrowsError(try rules.value(fromLine: "a photo")) { error in
            XCTAssertTrue(error.localizedDescription.contains("a photo question takes no typed value: its answer is the attached photo"), error.localizedDescription)
        }
        XCTAssertNoThrow(try outlet.type.checkMedia(["Qid1(1).jpg"], rules: rules))
        XCTAssertThrowsError(try outlet.type.checkMedia(["pump-noise.ogg"], rules: rules)) { error in
            XCTAssertEqual(error.localizedDescription,
                           "question outlet (2 of 4): pump-noise.ogg is an audio file, but the question takes a photo (gif, heic, jpeg, jpg, png, webp) — nothing was saved")
        }
        XCTAssertThrowsError(try outlet.type.checkMedia(["Qid1(1).jpg", "b.png"], rules: rules)) { error in
            XCTAssertTrue(error.localizedDescription.contains("the question takes one photo, and it would have 2"), error.localizedDescription)
        }
        let sound = template.questions[2]
        let soundRules = AnswerRules(question: sound, position: 3, count: 4)
        XCTAssertNoThrow(try sound.type.checkMedia(["a.ogg", "b.mp3"], rules: soundRules))
        XCTAssertThrowsError(try sound.type.checkMedia(["a.ogg", "b.mp3", "c.wav"], rules: soundRules))
        // A value question takes media of any kind, any number.
        XCTAssertNoThrow(try template.questions[0].type.checkMedia(["a.ogg", "b.jpg", "c.mp4"], rules: rules))

        XCTAssertEqual(outlet.type.answerMedia, MediaAnswer(kind: .photo, maxFiles: 1))
        XCTAssertNil(template.questions[0].type.answerMedia)
        XCTAssertEqual(outlet.type.presentation(of: form.answer(for: "outlet")), .media(kind: .photo, names: ["Qid1(1).jpg"]))
        XCTAssertNil(outlet.type.presentation(of: Answer()))
        XCTAssertEqual(outlet.type.tally, .files(.photo))
        XCTAssertEqual(MediaKind.audio.attached(2), "2 audio recordings attached")
        XCTAssertEqual(MediaKind.photo.attached(1), "1 photo attached")
    }

    func testCSVStatisticsAndSimulation() throws {
        let template = try template()
        var form = Form(name: "f", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 0))
        form.answers = [
            "tag": Answer(value: .text("PUMP-7731"), media: ["Qid0(1).jpg"]),
            "outlet": Answer(media: ["Qid1(1).jpg"]),
            "sound": Answer(media: ["Qid2(1).ogg", "Qid2(2).mp3"]),
            "clip": Answer(comment: "no camera"),
        ]
        let layout = CSVLayout(template: template)
        let cells = Dictionary(uniqueKeysWithValues: zip(layout.header, layout.row(for: form, attachmentsPresent: 4)))
        XCTAssertEqual(cells["tag"], "PUMP-7731")
        XCTAssertEqual(cells["outlet"], "Qid1(1).jpg")
        XCTAssertEqual(cells["sound"], "Qid2(1).ogg Qid2(2).mp3", "one cell, space-separated, as ODK Central writes it")
        XCTAssertEqual(cells["clip"], "")
        XCTAssertEqual(cells["clip-comment"], "no camera")

        var builder = try StatisticsBuilder(template: template)
        let empty = Form(name: "g", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 0))
        for index in [0, 1] {
            var counted = index == 0 ? form : empty
            counted.status = .completed
            counted.submittedAt = Date(timeIntervalSince1970: 60)
            XCTAssertTrue(builder.add(counted))
        }
        let questions = builder.result().questions
        XCTAssertEqual(questions.map(\.answered), [1, 1, 1, 0])
        XCTAssertEqual(questions.map(\.commentOnly), [0, 0, 0, 1])
        XCTAssertEqual(questions.map(\.unanswered), [1, 1, 1, 1])
        XCTAssertEqual(questions[2].media, [MediaCount(kind: "audio", count: 2)])

        var simulator = Simulator(seed: 5)
        var simulated = Form(name: "s", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 0))
        try simulator.fill(&simulated, by: "ana", at: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(simulated.openQuestions, [], "every question is answered or commented")
        XCTAssertNil(simulated.answer(for: "outlet").value)
        XCTAssertNotNil(simulated.answer(for: "outlet").comment, "a photo cannot be made up: a comment says so")
        XCTAssertEqual(PhotoQuestion().simulatedStandIn, "Simulated: no photo (none can be made up)")
    }
}
