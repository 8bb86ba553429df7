import Foundation
import MIKit
import TestSupport
import XCTest

/// Groups and repeats (issue 24 item 3): templates read and written nested, answers addressed by
/// path, `${name}` read in and across instances, group relevance, counts from expressions,
/// calculations per instance, instances added and removed through `Workflow`.
final class GroupsAndRepeatsTests: XCTestCase {
    static let json = #"""
        {"id": "station", "title": "Station", "version": 1, "questions": [
          {"id": "site", "type": "shortAnswer", "text": "Site"},
          {"id": "npumps", "type": "numeric", "text": "How many pumps?"},
          {"id": "pumps", "type": "repeat", "text": "Pump", "repeatCount": "${npumps}", "questions": [
            {"id": "amps", "type": "numeric", "text": "Current (A)", "constraint": ". <= 40", "constraintMessage": "At most 40 A"},
            {"id": "volts", "type": "numeric", "text": "Voltage (V)"},
            {"id": "kw", "type": "calculate", "text": "Power (kW)", "calculation": "${amps} * ${volts} div 1000"},
            {"id": "seals", "type": "repeat", "text": "Seal", "questions": [
              {"id": "seal", "type": "shortAnswer", "text": "Seal state"}
            ]}
          ]},
          {"id": "total", "type": "calculate", "text": "Total kW", "calculation": "sum(${kw})"},
          {"id": "count", "type": "calculate", "text": "Pumps", "calculation": "count(${pumps})"},
          {"id": "leaks", "type": "group", "text": "Leaks", "relevant": "${total} > 5", "questions": [
            {"id": "leak", "type": "shortAnswer", "text": "Where is the leak?"}
          ]}
        ]}
        """#

    func template() throws -> Template { try TemplateCoding().decode(Data(Self.json.utf8), source: "station.json") }

    func testNestedTemplateIsReadFlatWithGroupsAndWrittenBackNested() throws {
        let template = try template()
        XCTAssertEqual(template.questions.map(\.id), ["site", "npumps", "amps", "volts", "kw", "seal", "total", "count", "leak"])
        XCTAssertEqual(template.groups.map(\.id), ["pumps", "seals", "leaks"])
        XCTAssertEqual(template.question(id: "seal")?.group, "seals")
        XCTAssertEqual(template.group(id: "seals")?.parent, "pumps")
        XCTAssertEqual(template.repeatChain(of: try XCTUnwrap(template.question(id: "seal"))).map(\.id), ["pumps", "seals"])
        let encoded = TemplateCoding().encode(template)
        let items = try XCTUnwrap(encoded.objectValue?["questions"]?.arrayValue)
        XCTAssertEqual(items.count, 6)
        XCTAssertEqual(items[2].objectValue?["type"], .string("repeat"))
        XCTAssertEqual(items[2].objectValue?["questions"]?.arrayValue?.count, 4)
        XCTAssertEqual(try TemplateCoding().decode(encoded, source: "again"), template)
    }

    func testBadGroupsAreRefusedNamingTheGroupAndKey() {
        func refusal(_ questions: String) -> String {
            let json = #"{"id": "t", "title": "T", "version": 1, "questions": ["# + questions + #"]}"#
            do { _ = try TemplateCoding().decode(Data(json.utf8), source: "t.json"); return "accepted" } catch { return error.localizedDescription }
        }
        XCTAssertTrue(refusal(#"{"id": "g", "type": "group", "questions": []}"#).contains("needs at least one question"))
        XCTAssertTrue(refusal(#"{"id": "g", "type": "group", "repeatCount": 2, "questions": [{"id": "a", "type": "shortAnswer", "text": "A"}]}"#).contains("only a repeat has a count"))
        XCTAssertTrue(refusal(#"{"id": "r", "type": "repeat", "repeatCount": "${a} + 1", "questions": [{"id": "a", "type": "numeric", "text": "A"}]}"#)
            .contains("stands inside the repeat itself"))
        XCTAssertTrue(refusal(#"{"id": "a", "type": "shortAnswer", "text": "A"}, {"id": "r", "type": "repeat", "questions": [{"id": "a", "type": "shortAnswer", "text": "B"}]}"#)
            .contains("duplicate question id"))
        XCTAssertTrue(refusal(#"{"id": "r", "type": "repeat", "repeatCount": "${nope}", "questions": [{"id": "a", "type": "shortAnswer", "text": "A"}]}"#)
            .contains("no question named 'nope'"))
        XCTAssertTrue(refusal(#"{"id": "r", "type": "repeat", "repeatCount": 5000, "questions": [{"id": "a", "type": "shortAnswer", "text": "A"}]}"#)
            .contains("from 0 to 1000"))
    }

    func testPathsReadAndWrite() {
        XCTAssertEqual(AnswerPath(parsing: "trees[2]/stems[1]/cbh")?.instance, [InstanceStep("trees", 2), InstanceStep("stems", 1)])
        XCTAssertEqual(AnswerPath(parsing: "trees[2]/stems[1]/cbh")?.description, "trees[2]/stems[1]/cbh")
        XCTAssertEqual(AnswerPath(parsing: "cbh"), AnswerPath("cbh"))
        for bad in ["trees[0]/cbh", "trees[x]/cbh", "trees[2]", "trees/cbh", "[2]/cbh", "trees[02]/cbh", "a//b", ""] {
            XCTAssertNil(AnswerPath(parsing: bad), bad)
        }
    }

    func testCountsReferencesCalculationsAndGroupRelevanceFollowTheInstances() throws {
        let template = try template()
        let logic = FormLogic(template: template)
        var form = Form(name: "s", user: "ana", template: template, createdAt: TestClock.start)
        form.answers["npumps"] = Answer(value: .number(2))
        form.answers["pumps[1]/amps"] = Answer(value: .number(10))
        form.answers["pumps[1]/volts"] = Answer(value: .number(400))
        form.answers["pumps[2]/amps"] = Answer(value: .number(5))
        form.answers["pumps[2]/volts"] = Answer(value: .number(230))
        form = logic.recalculated(form, now: TestClock.start)
        XCTAssertEqual(form.answers["pumps[1]/kw"]?.value, .text("4"))
        XCTAssertEqual(form.answers["pumps[2]/kw"]?.value, .text("1.15"))
        XCTAssertEqual(form.answers["total"]?.value, .text("5.15"))
        XCTAssertEqual(form.answers["count"]?.value, .text("2"))
        XCTAssertEqual(form.slots.map(\.key), ["site", "npumps", "pumps[1]/amps", "pumps[1]/volts", "pumps[1]/kw",
                                               "pumps[2]/amps", "pumps[2]/volts", "pumps[2]/kw", "total", "count", "leak"])
        let leak = try XCTUnwrap(form.slots.last)
        XCTAssertTrue(logic.isRelevant(leak, in: form), "total 5.15 > 5")
        form.answers["pumps[2]/amps"] = Answer(value: .number(50))
        form = logic.recalculated(form, now: TestClock.start, changed: ["amps"])
        XCTAssertEqual(form.answers["total"]?.value, .text("15.5"), "only what depends on amps, and all of it")
        XCTAssertEqual(logic.violations(in: form, now: TestClock.start, requireAnswers: false).map(\.question), ["pumps[2]/amps"])
        XCTAssertEqual(logic.violations(in: form, now: TestClock.start, requireAnswers: false).first?.message, "At most 40 A")
        // Lowering the count leaves pump 2's answers stray: cleared at submission.
        form.answers["pumps[2]/amps"] = Answer(value: .number(5))
        form.answers["npumps"] = Answer(value: .number(1))
        form.answers["leak"] = Answer(value: .text("flange"))
        let (prepared, cleared) = logic.preparedForSubmission(form, now: TestClock.start)
        XCTAssertEqual(Set(cleared), ["leak", "pumps[2]/amps", "pumps[2]/volts", "pumps[2]/kw"])
        XCTAssertEqual(prepared.answers["total"]?.value, .text("4"))
        XCTAssertNil(prepared.answers["leak"], "the group's relevance (total > 5) is false now")
        XCTAssertEqual(logic.violations(in: prepared, now: TestClock.start, requireAnswers: false), [])
    }

    func testPositionGivesTheInstancesNumber() throws {
        let json = #"{"id": "p", "title": "P", "version": 1, "questions": [{"id": "r", "type": "repeat", "repeatCount": 3, "questions": ["#
            + #"{"id": "n", "type": "calculate", "text": "N", "calculation": "position(..) * 10"},"#
            + #"{"id": "m", "type": "calculate", "text": "M", "calculation": "position()"}]}]}"#
        let template = try TemplateCoding().decode(Data(json.utf8), source: "p.json")
        let form = FormLogic(template: template).recalculated(Form(name: "p", user: "ana", template: template, createdAt: TestClock.start), now: TestClock.start)
        XCTAssertEqual(form.answers["r[3]/n"]?.value, .text("30"))
        XCTAssertEqual(form.answers["r[2]/m"]?.value, .text("2"))
    }

    func testWorkflowAddsOpenInstancesByPathAndRemovesThemWithTheirMedia() throws {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "station.json")
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "station", name: "s1")
        _ = try workflow.answer("s1", [AnswerUpdate(question: "npumps", value: .words(["1"]))])
        XCTAssertThrowsError(try workflow.answer("s1", [AnswerUpdate(question: "amps", value: .words(["3"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("name its instance, as in pumps[1]/amps"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.answer("s1", [AnswerUpdate(question: "pumps[2]/amps", value: .words(["3"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("pumps has 1 instance (its count is ${npumps})"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.answer("s1", [AnswerUpdate(question: "pumps[1]/amps", value: .words(["41"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("pumps[1]/amps (3 of 9): At most 40 A"), error.localizedDescription)
        }
        // An open repeat grows one instance at a time.
        _ = try workflow.answer("s1", [AnswerUpdate(question: "pumps[1]/seals[1]/seal", value: .words(["ok"]))])
        XCTAssertThrowsError(try workflow.answer("s1", [AnswerUpdate(question: "pumps[1]/seals[3]/seal", value: .words(["ok"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("pumps[1]/seals has 1 instance; pumps[1]/seals[2] adds the next"), error.localizedDescription)
        }
        _ = try workflow.answer("s1", [AnswerUpdate(question: "pumps[1]/seals[2]/seal", value: .words(["worn"]))])
        let photo = fixture.root.appendingPathComponent("seal.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: photo)
        _ = try workflow.attach("s1", question: "pumps[1]/seals[2]/seal", files: [photo])
        _ = try workflow.answer("s1", [AnswerUpdate(question: "pumps[1]/seals[3]/seal", value: .words(["cracked"]))])
        var form = try fixture.store.load(try workflow.resolve("s1"))
        XCTAssertEqual(form.repeats, ["pumps[1]/seals": 3])
        XCTAssertEqual(form.answers["pumps[1]/seals[2]/seal"]?.media, ["Qid5_1_2(1).jpg"])
        let folder = try workflow.resolve("s1").folder
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Qid5_1_2(1).jpg").path))
        form = try workflow.removeInstance("s1", repeat: "pumps[1]/seals", number: 2)
        XCTAssertEqual(form.repeats, ["pumps[1]/seals": 2])
        XCTAssertEqual(form.answers["pumps[1]/seals[2]/seal"]?.value, .text("cracked"), "instance 3 moved up")
        XCTAssertNil(form.answers["pumps[1]/seals[3]/seal"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Qid5_1_2(1).jpg").path))
        XCTAssertEqual(form.audit.last?.action, .removed)
        XCTAssertEqual(form.audit.last?.sentence, "removed the instance pumps[1]/seals[2] by ana (media removed: Qid5_1_2(1).jpg)")
        XCTAssertThrowsError(try workflow.removeInstance("s1", repeat: "pumps", number: 1)) { error in
            XCTAssertTrue(error.localizedDescription.contains("change that answer instead"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.removeInstance("s1", repeat: "pumps[1]/seals", number: 5)) { error in
            XCTAssertTrue(error.localizedDescription.contains("remove one from 1 to 2"), error.localizedDescription)
        }
        // The form reads back the same through both readers.
        let data = try FormFile.encode(form)
        XCTAssertEqual(try FormFile.decode(data).repeats, form.repeats)
        var reader = FormReader()
        XCTAssertEqual(try reader.decode(data), try FormFile.decode(data))
    }
}
