import Foundation
import MIKit
import TestSupport
import XCTest

/// Templates in several languages (issue 25 item 3): any text a string or an object of language
/// → text, the default language's in the plain fields, `localized(to:)` for the others.
final class TemplateLanguagesTests: XCTestCase {
    static let json = #"""
        {"id": "bomba", "version": 1, "defaultLanguage": "Español (es)",
         "title": {"Español (es)": "Bomba", "English (en)": "Pump"},
         "questions": [
          {"id": "pressure", "type": "numeric",
           "text": {"Español (es)": "Presión (bar)", "English (en)": "Pressure (bar)"},
           "help": {"Español (es)": "En la placa", "English (en)": "On the plate"},
           "constraint": ". <= 16",
           "constraintMessage": {"Español (es)": "Máximo 16 bar", "English (en)": "At most 16 bar"}},
          {"id": "state", "type": "multipleChoice", "text": "Estado",
           "options": [{"name": "ok", "label": {"Español (es)": "Bien", "English (en)": "Good"}},
                       {"name": "bad", "label": {"Español (es)": "Mal", "English (en)": "Bad"}}]},
          {"id": "pumps", "type": "repeat", "text": {"Español (es)": "Bomba", "English (en)": "Pump"}, "questions": [
            {"id": "amps", "type": "numeric", "text": {"Español (es)": "Corriente", "English (en)": "Current"}}
          ]}
        ]}
        """#

    func template() throws -> Template { try TemplateCoding().decode(Data(Self.json.utf8), source: "bomba.json") }

    func testDefaultLanguageInThePlainFieldsAndEveryLanguageLocalized() throws {
        let template = try template()
        XCTAssertEqual(template.languages, ["Español (es)", "English (en)"])
        XCTAssertEqual(template.title, "Bomba")
        XCTAssertEqual(template.questions[0].text, "Presión (bar)")
        XCTAssertEqual(template.questions[0].logic.constraintMessage, "Máximo 16 bar")
        let english = template.localized(to: "English (en)")
        XCTAssertEqual(english.title, "Pump")
        XCTAssertEqual(english.questions[0].text, "Pressure (bar)")
        XCTAssertEqual(english.questions[0].help, "On the plate")
        XCTAssertEqual(english.questions[0].logic.constraintMessage, "At most 16 bar")
        XCTAssertEqual(english.questions[1].text, "Estado", "a text in one language stays as it is")
        XCTAssertEqual((english.questions[1].type as? MultipleChoiceQuestion)?.options, ["Good", "Bad"])
        XCTAssertEqual(english.group(id: "pumps")?.label, "Pump")
        XCTAssertEqual(english.questions.map(\.id), template.questions.map(\.id))
        XCTAssertEqual(template.localized(to: "Deutsch (de)"), template, "a language the template does not have changes nothing")
    }

    func testLanguagesAreMatchedByNameCodeOrLocale() throws {
        let template = try template()
        XCTAssertEqual(template.language(matching: "en"), "English (en)")
        XCTAssertEqual(template.language(matching: "es_MX.UTF-8"), "Español (es)")
        XCTAssertEqual(template.language(matching: "english (EN)"), "English (en)")
        XCTAssertEqual(template.language(matching: "English (en)"), "English (en)")
        XCTAssertNil(template.language(matching: "de"))
        XCTAssertNil(template.language(matching: "C.UTF-8"))
    }

    func testEveryLanguageIsWrittenBackAndReadTheSame() throws {
        let template = try template()
        let encoded = TemplateCoding().encode(template)
        XCTAssertEqual(encoded.objectValue?["title"], .object(["Español (es)": .string("Bomba"), "English (en)": .string("Pump")]))
        XCTAssertEqual(encoded.objectValue?["defaultLanguage"], .string("Español (es)"))
        XCTAssertEqual(try TemplateCoding().decode(encoded, source: "again"), template)
    }

    func testAFormRecordsTheLanguageItIsStartedInAndKeepsIt() throws {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "bomba.json")
        let workflow = fixture.workflow()
        let (_, english) = try workflow.startForm(templateID: "bomba", name: "b1", language: "en_GB.UTF-8")
        XCTAssertEqual(english.language, "English (en)")
        XCTAssertEqual(english.localizedTemplate.questions[0].text, "Pressure (bar)")
        let (_, spanish) = try workflow.startForm(templateID: "bomba", name: "b2", language: "es")
        XCTAssertNil(spanish.language, "the default language is not recorded")
        let (_, unknown) = try workflow.startForm(templateID: "bomba", name: "b3", language: "de")
        XCTAssertNil(unknown.language)
        let data = try FormFile.encode(english)
        XCTAssertEqual(try FormFile.decode(data).language, "English (en)")
        var reader = FormReader()
        XCTAssertEqual(try reader.decode(data), try FormFile.decode(data))
    }

    func testFillLangSetsTheFormsLanguageAndTheFormIsShownInIt() throws {
        let fixture = try StoreFixture()
        try TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys).install(Data(Self.json.utf8), source: "bomba.json")
        let workflow = fixture.workflow()
        _ = try workflow.startForm(templateID: "bomba", name: "b1")
        let english = try workflow.setLanguage("b1", to: "en")
        XCTAssertEqual(english.language, "English (en)")
        XCTAssertEqual(english.shown().template.title, "Pump")
        XCTAssertEqual(english.shown(in: "es").template.title, "Bomba")
        XCTAssertEqual(english.template.title, "Bomba", "the form keeps the template as published")
        XCTAssertThrowsError(try workflow.setLanguage("b1", to: "de")) { error in
            XCTAssertEqual(error.localizedDescription, "template bomba has no language \"de\" (its languages: Español (es), English (en)) — nothing was changed")
            XCTAssertEqual((error as? WorkflowError)?.failureClass, .usage)
        }
        XCTAssertNil(try workflow.setLanguage("b1", to: "Español (es)").language, "back to the default")
        XCTAssertThrowsError(try workflow.startForm(templateID: "bomba", name: "b2", requiredLanguage: "fr"))
        XCTAssertEqual(try workflow.startForm(templateID: "bomba", name: "b3", language: "es", requiredLanguage: "en").1.language, "English (en)")
    }

    func testTextsInSeveralLanguagesNeedTheDefaultLanguage() {
        func refusal(_ json: String) -> String {
            do { _ = try TemplateCoding().decode(Data(json.utf8), source: "t.json"); return "accepted" } catch { return error.localizedDescription }
        }
        XCTAssertTrue(refusal(#"{"id": "t", "title": "T", "version": 1, "questions": [{"id": "a", "type": "shortAnswer", "text": {"en": "A", "es": "A"}}]}"#)
            .contains("needs the template's \"defaultLanguage\""))
        XCTAssertTrue(refusal(#"{"id": "t", "title": "T", "version": 1, "defaultLanguage": "fr", "questions": [{"id": "a", "type": "shortAnswer", "text": {"en": "A"}}]}"#)
            .contains("no text in the default language \"fr\""))
        XCTAssertTrue(refusal(#"{"id": "t", "title": "T", "version": 1, "defaultLanguage": "en", "questions": [{"id": "a", "type": "shortAnswer", "text": {"en": ""}}]}"#)
            .contains("must be a non-empty string"))
    }
}
