import Foundation
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The submission page's view of a form with groups and repeats, rendered as the office renders
/// it: the group as a labelled section marked "not relevant", the counted repeat of simple
/// questions as one table, the open repeat as a section per instance (the nested repeat and the
/// photo inside), every text escaped; and the listing's search text reads every instance.
final class SubmissionPageRepeatsTests: XCTestCase {
    static let hostile = "<img src=x onerror=alert(1)>"

    func html(_ form: Form) throws -> String {
        let receipt = Receipt(id: form.id, user: "ana", formName: form.name, uploadedBy: "fiona",
                              receivedAt: form.createdAt, parts: [])
        return try XCTUnwrap(try OfficeViews().library.render(SubmissionPageController.values(form, receipt: receipt),
                                                              withTemplate: "submission"))
    }

    func testGroupsTablesAndInstancesAreDrawnInOrder() throws {
        let html = try html(try StationFixture.form("Seal face " + Self.hostile))
        func position(_ piece: String) -> Int {
            guard let range = html.range(of: piece) else {
                XCTFail("\(piece) is not in the page:\n\(html)")
                return -1
            }
            return html.distance(from: html.startIndex, to: range.lowerBound)
        }
        let order = [
            #"<section class="form-group not-relevant" data-group-id="power">"#,
            #"<span class="not-relevant-mark">not relevant</span></h2>"#,
            #"<section class="question panel not-relevant" data-question-id="voltage" data-path="voltage">"#,
            #"<section class="form-repeat panel" data-repeat-id="pumps" data-path="pumps">"#,
            #"<th data-question-id="amps" title="">Current (A)</th>"#,
            #"<tr class="instance" data-path="pumps[1]">"#, #"<td class="" data-path="pumps[1]/amps">12</td>"#,
            #"<td class="" data-path="pumps[1]/wear">Seal face &lt;img src=x onerror=alert(1)&gt;<span class="cell-comment">seen at start-up</span></td>"#,
            #"<tr class="instance" data-path="pumps[2]">"#,
            #"<td class="not-relevant" data-path="pumps[2]/wear"><span class="not-relevant-mark">not relevant</span></td>"#,
            #"<section class="form-repeat" data-repeat-id="tanks" data-path="tanks">"#,
            #"<section class="repeat-instance" data-path="tanks[1]">"#,
            #"data-question-id="tankphoto" data-path="tanks[1]/tankphoto">"#,
            #"<img class="photo" src="#, #"alt="Qid8_1(1).jpg""#,
            #"data-repeat-id="valves" data-path="tanks[1]/valves">"#,
            #"<tr class="instance" data-path="tanks[1]/valves[2]">"#,
            #"<section class="repeat-instance" data-path="tanks[2]">"#,
            #"data-repeat-id="valves" data-path="tanks[2]/valves">"#,
            #"<p class="muted">none</p>"#,
            #"<section id="foreman-comments""#,
        ]
        let positions = order.map(position)
        XCTAssertEqual(positions, positions.sorted(), "out of order: \(zip(order, positions).map { "\($0.1) \($0.0)" })")
        XCTAssertFalse(html.contains("<img src=x"), "an answer is text, never markup")
        XCTAssertTrue(html.contains("15 of 16 questions"), "the header counts every instance's questions")
    }

    func testSearchTextReadsEveryInstance() throws {
        let text = SubmissionSearchText.text(of: try StationFixture.form())
        for word in ["North plant", "12", "9.5", "Seal face", "seen at start-up", "closed", "half open", "35"] {
            XCTAssertTrue(text.contains(word), "\(word) is not searchable: \(text)")
        }
    }
}

/// The submission page of a form whose template has two languages: in the form's language by
/// default, in the other with `?lang=`, with a switch linking each; the answers the same.
final class SubmissionPageLanguageTests: XCTestCase {
    static let template = """
    {"id": "bomba", "version": 1, "defaultLanguage": "Español (es)",
     "title": {"Español (es)": "Bomba", "English (en)": "Pump"},
     "questions": [
      {"id": "pressure", "type": "numeric", "text": {"Español (es)": "Presión (bar)", "English (en)": "Pressure (bar)"}},
      {"id": "state", "type": "multipleChoice", "text": {"Español (es)": "Estado", "English (en)": "State"},
       "options": [{"name": "ok", "label": {"Español (es)": "Bien", "English (en)": "Good"}}, "mal"]}
     ]}
    """

    func html(_ form: Form, language: String?) throws -> String {
        let receipt = Receipt(id: form.id, user: "ana", formName: form.name, uploadedBy: "fiona",
                              receivedAt: form.createdAt, parts: [])
        return try XCTUnwrap(try OfficeViews().library.render(SubmissionPageController.values(form, receipt: receipt, language: language),
                                                              withTemplate: "submission"))
    }

    func testTheSwitchShowsEachLanguage() throws {
        let template = try TemplateCoding(keys: .logical).decode(Data(Self.template.utf8), source: "bomba")
        var form = Form(name: "B-1", user: "ana", template: template, createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        form.language = "English (en)"
        let english = try html(form, language: nil)
        XCTAssertTrue(english.contains("Pressure (bar)"), english)
        XCTAssertFalse(english.contains("Presión"))
        XCTAssertTrue(english.contains(#"<strong class="language current" data-language="English (en)">English (en)</strong>"#), english)
        XCTAssertTrue(english.contains(#"<a class="language" data-language="Español (es)" href="?lang=Espa%C3%B1ol%20%28es%29">"#), english)
        let spanish = try html(form, language: "es")
        XCTAssertTrue(spanish.contains("Presión (bar)"))
        XCTAssertFalse(spanish.contains("Pressure"))
        XCTAssertTrue(spanish.contains(#"<strong class="language current" data-language="Español (es)">"#))
        // One language: no switch.
        let plain = try TemplateCoding(keys: .logical).decode(Data(#"{"id": "t", "version": 1, "title": "T", "questions": [{"id": "q", "type": "shortAnswer", "text": "Q"}]}"#.utf8), source: "t")
        XCTAssertFalse(try html(Form(name: "T-1", user: "ana", template: plain, createdAt: Date(timeIntervalSince1970: 1_790_000_000)), language: nil).contains("language-switch"))
    }
}
