import Foundation
import MIKit
import TestSupport
import XCTest

/// Form logic on top-level questions (issue 24 items 2 and 4): the template keys read and
/// refused at load, and ODK's semantics through `FormLogic` and `Workflow`.
final class FormLogicTests: XCTestCase {
    static let json = #"""
        {"id": "logic", "title": "Logic", "version": 1, "questions": [
          {"id": "leak", "type": "trueFalse", "text": "Is there a leak?"},
          {"id": "where", "type": "shortAnswer", "text": "Where?", "relevant": "${leak} = 'true'"},
          {"id": "rated", "type": "numeric", "text": "Rated bar", "default": "10"},
          {"id": "limit", "type": "calculate", "text": "Limit", "calculation": "${rated} * 1.1"},
          {"id": "pressure", "type": "numeric", "text": "Pressure", "constraint": ". <= ${limit}",
           "constraintMessage": "Above 110% of the rating"},
          {"id": "reason", "type": "shortAnswer", "text": "Why so high?", "required": "${pressure} > ${rated}",
           "requiredMessage": "Say why the pressure is above the rating"},
          {"id": "region", "type": "multipleChoice", "text": "Region", "options": ["north", "south"]},
          {"id": "site", "type": "multipleChoice", "text": "Site", "choiceFilter": "region = ${region}",
           "options": [{"name": "n1", "label": "North 1", "region": "north"},
                       {"name": "s1", "label": "South 1", "region": "south"}]},
          {"id": "serial", "type": "shortAnswer", "text": "Serial", "readOnly": true, "default": "P-1"}
        ]}
        """#

    func template(_ json: String = FormLogicTests.json) throws -> Template {
        try TemplateCoding().decode(Data(json.utf8), source: "logic.json")
    }

    func form(_ answers: [String: AnswerValue] = [:]) throws -> Form {
        var form = Form(name: "f", user: "ana", template: try template(), createdAt: TestClock.start)
        for (id, value) in answers { form.answers[id] = Answer(value: value) }
        return form
    }

    func refusal(_ json: String) -> String {
        do {
            _ = try template(json)
            return "accepted"
        } catch {
            return error.localizedDescription
        }
    }

    func testKeysAreReadAndWrittenBackUnchanged() throws {
        let template = try template()
        XCTAssertTrue(template.hasLogic)
        XCTAssertEqual(template.questions[1].logic.relevant?.text, "${leak} = 'true'")
        XCTAssertEqual(template.questions[5].logic.requiredMessage, "Say why the pressure is above the rating")
        XCTAssertTrue(template.questions[3].type is CalculateQuestion)
        let site = try XCTUnwrap(template.questions[7].type as? MultipleChoiceQuestion)
        XCTAssertEqual(site.choices[0].attributes, ["region": "north"])
        let encoded = TemplateCoding().encode(template)
        XCTAssertEqual(encoded.objectValue?["questions"]?.arrayValue?[7].objectValue?["choiceFilter"], .string("region = ${region}"))
        XCTAssertEqual(try TemplateCoding().decode(encoded, source: "again"), template)
        XCTAssertFalse(TemplateFixture.tiny().hasLogic, "a template without the keys has no logic")
        XCTAssertTrue(try TemplateFixture.sampleTemplate().hasLogic, "the shipped pump inspection has a constraint and a relevance")
    }

    func testBadExpressionsAndUnknownReferencesAreRefusedNamingTemplateQuestionKeyAndPosition() {
        let bad = Self.json.replacingOccurrences(of: #""relevant": "${leak} = 'true'""#, with: #""relevant": "${leak} = ""#)
        let message = refusal(bad)
        XCTAssertTrue(message.contains("template logic"), message)
        XCTAssertTrue(message.contains(#"question where, field "relevant": at position 10 (counting from 0)"#), message)
        let unknown = Self.json.replacingOccurrences(of: #"". <= ${limit}""#, with: #"". <= ${limt}""#)
        let second = refusal(unknown)
        XCTAssertTrue(second.contains(#"question pressure, field "constraint": at position 5 (counting from 0): there is no question named 'limt'"#), second)
        let cycle = Self.json.replacingOccurrences(of: #""${rated} * 1.1""#, with: #""${limit} + 1""#)
        XCTAssertTrue(refusal(cycle).contains("depends on itself"), refusal(cycle))
        let attribute = Self.json.replacingOccurrences(of: "region = ${region}", with: "zone = ${region}")
        XCTAssertTrue(refusal(attribute).contains(#"field "choiceFilter""#), refusal(attribute))
        let noCalculation = Self.json.replacingOccurrences(of: #", "calculation": "${rated} * 1.1""#, with: "")
        XCTAssertTrue(refusal(noCalculation).contains(#"question limit, field "calculation": missing"#), refusal(noCalculation))
        let badDefault = Self.json.replacingOccurrences(of: #""default": "10""#, with: #""default": "ten""#)
        XCTAssertTrue(refusal(badDefault).contains(#"question rated, field "default""#), refusal(badDefault))
    }

    func testRelevanceHidesAndUnrequiresAndIsClearedAtSubmission() throws {
        let logic = FormLogic(template: try template())
        var form = try form(["leak": .bool(false), "where": .text("flange")])
        let whereQuestion = try XCTUnwrap(form.template.question(id: "where"))
        XCTAssertFalse(logic.isRelevant(whereQuestion, in: form))
        XCTAssertTrue(form.isDone(whereQuestion), "not relevant: never open")
        XCTAssertEqual(logic.violations(in: form, requireAnswers: false).map(\.kind), [.notRelevant, .calculation])
        let (prepared, cleared) = logic.preparedForSubmission(form)
        XCTAssertEqual(cleared, ["where"])
        XCTAssertNil(prepared.answers["where"])
        form.answers["leak"] = Answer(value: .bool(true))
        XCTAssertTrue(logic.isRelevant(whereQuestion, in: form))
    }

    /// A photo question's answer is its file: when the question is not relevant the file is
    /// what submission clears and what the server refuses, while media attached beside a value
    /// stay (as the comments do).
    func testAPhotoThatIsTheAnswerIsClearedWhenNotRelevantAndMediaBesideAValueStay() throws {
        let template = try TemplateFixture.sampleTemplate()
        let logic = FormLogic(template: template)
        var form = Form(name: "p", user: "ana", template: template, createdAt: TestClock.start)
        form.answers["leaks"] = Answer(value: .choices(["None"]), media: ["Qid1(1).jpg"])
        form.answers["leak_photo"] = Answer(comment: "taken before the seal was wiped", media: ["Qid2(1).jpg"])
        XCTAssertEqual(logic.violations(in: form, requireAnswers: false).map(\.question), ["leak_photo"])
        XCTAssertEqual(logic.violations(in: form, requireAnswers: false).first?.kind, .notRelevant)
        let (prepared, cleared) = logic.preparedForSubmission(form)
        XCTAssertEqual(cleared, ["leak_photo"])
        XCTAssertEqual(prepared.answers["leak_photo"], Answer(comment: "taken before the seal was wiped"))
        XCTAssertEqual(prepared.answers["leaks"]?.media, ["Qid1(1).jpg"], "a photo beside a value is not the answer")
        XCTAssertTrue(logic.violations(in: prepared, requireAnswers: false).isEmpty)
        // With a leak, the photo is relevant, kept and never a violation.
        form.answers["leaks"] = Answer(value: .choices(["Mechanical seal"]))
        XCTAssertEqual(logic.irrelevantAnswers(in: form), [])
        XCTAssertEqual(logic.preparedForSubmission(form).form.answers["leak_photo"]?.media, ["Qid2(1).jpg"])
    }

    func testCalculationsConstraintsAndRequiredByExpression() throws {
        let logic = FormLogic(template: try template())
        var form = logic.recalculated(try form(["rated": .number(10)]))
        XCTAssertEqual(form.answers["limit"]?.value, .text("11"))
        let pressure = try XCTUnwrap(form.template.question(id: "pressure"))
        XCTAssertNil(logic.constraintProblem(pressure, value: .number(11), in: form))
        XCTAssertEqual(logic.constraintProblem(pressure, value: .number(12), in: form), "Above 110% of the rating")
        let reason = try XCTUnwrap(form.template.question(id: "reason"))
        form.answers["pressure"] = Answer(value: .number(10.5))
        XCTAssertEqual(logic.isRequired(reason, in: form), true)
        form.answers["reason"] = Answer(comment: "no idea")
        XCTAssertFalse(form.isDone(reason), "required: a comment alone does not do")
        XCTAssertEqual(logic.violations(in: form).first { $0.question == "reason" }?.message, "Say why the pressure is above the rating")
        form.answers["pressure"] = Answer(value: .number(9))
        XCTAssertEqual(logic.isRequired(reason, in: form), false)
        XCTAssertTrue(form.isDone(reason))
        // An altered calculation is caught.
        form.answers["limit"] = Answer(value: .text("1000"))
        XCTAssertEqual(logic.violations(in: form).first?.kind, .calculation)
    }

    func testChoiceFilterOffersOnlyMatchingOptions() throws {
        let logic = FormLogic(template: try template())
        let form = try form(["region": .choices(["south"])])
        let site = try XCTUnwrap(form.template.question(id: "site"))
        XCTAssertEqual(logic.choiceNames(site, in: form), ["s1"])
        XCTAssertNil(logic.constraintProblem(site, value: .choices(["s1"]), in: form))
        XCTAssertTrue(logic.constraintProblem(site, value: .choices(["n1"]), in: form)?.contains("'n1' is not offered here") == true)
    }

    func testWorkflowAppliesDefaultsChecksAnswersAndClearsAtSubmit() throws {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "logic.json")
        let workflow = fixture.workflow()
        let (_, started) = try workflow.startForm(templateID: "logic", name: "l1")
        XCTAssertEqual(started.answers["rated"]?.value, .number(10), "default")
        XCTAssertEqual(started.answers["serial"]?.value, .text("P-1"), "default of a read-only question")
        XCTAssertEqual(started.answers["limit"]?.value, .text("11"), "calculated at creation")
        XCTAssertThrowsError(try workflow.answer("l1", [AnswerUpdate(question: "serial", value: .words(["P-2"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("read-only"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.answer("l1", [AnswerUpdate(question: "limit", value: .words(["5"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("calculated"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.answer("l1", [AnswerUpdate(question: "pressure", value: .words(["12"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("Above 110% of the rating"), error.localizedDescription)
        }
        // Changing the rating recomputes the limit, so 12 is now within it.
        _ = try workflow.answer("l1", [AnswerUpdate(question: "rated", value: .words(["20"])),
                                       AnswerUpdate(question: "pressure", value: .words(["12"]))])
        _ = try workflow.answer("l1", [AnswerUpdate(question: "leak", value: .words(["yes"])),
                                       AnswerUpdate(question: "where", value: .words(["flange"])),
                                       AnswerUpdate(question: "region", value: .words(["north"])),
                                       AnswerUpdate(question: "site", value: .words(["n1"]))])
        _ = try workflow.answer("l1", [AnswerUpdate(question: "leak", value: .words(["no"]))])
        let (_, submitted) = try workflow.submit("l1")
        XCTAssertNil(submitted.answers["where"]?.value, "not relevant: not submitted")
        let cleared = try XCTUnwrap(submitted.audit.first { $0.action == .cleared })
        XCTAssertEqual(cleared.questions, ["where"])
        XCTAssertTrue(cleared.note?.contains("not relevant") == true)
        XCTAssertEqual(cleared.sentence, "cleared the answer to where by ana (not relevant at submission: the answers are not submitted)")
        XCTAssertEqual(submitted.answers["limit"]?.value, .text("22"))
    }

    func testSubmitRefusesARequiredQuestionAnsweredOnlyByAComment() throws {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "logic.json")
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "logic", name: "l2")
        _ = try workflow.answer("l2", [AnswerUpdate(question: "leak", value: .words(["no"])),
                                       AnswerUpdate(question: "pressure", value: .words(["10.5"])),
                                       AnswerUpdate(question: "reason", value: nil, comment: "no idea"),
                                       AnswerUpdate(question: "region", value: .words(["south"])),
                                       AnswerUpdate(question: "site", value: .words(["s1"]))])
        XCTAssertThrowsError(try workflow.submit("l2")) { error in
            XCTAssertTrue(error.localizedDescription.contains("question reason: Say why the pressure is above the rating"), error.localizedDescription)
        }
        _ = try workflow.answer("l2", [AnswerUpdate(question: "reason", value: .words(["valve", "stuck"]))])
        XCTAssertEqual(try workflow.submit("l2").1.status, .completed)
    }

    func testSimulatedFormsOfATemplateWithLogicPassSubmit() throws {
        let template = try template()
        for seed in UInt64(1)...20 {
            var simulator = Simulator(seed: seed)
            var form = FormLogic(template: template).withDefaults(Form(name: "s", user: "ana", template: template, createdAt: TestClock.start), now: TestClock.start)
            try simulator.fill(&form, by: "ana", at: TestClock.start)
            let logic = FormLogic(template: template)
            let (prepared, _) = logic.preparedForSubmission(form, now: TestClock.start)
            let violations = logic.violations(in: prepared, now: TestClock.start)
            XCTAssertTrue(violations.isEmpty || violations.allSatisfy { $0.kind == .required }, "seed \(seed): \(violations)")
            XCTAssertTrue(violations.isEmpty, "seed \(seed): \(violations)")
        }
    }
}
