import Foundation
import MIKit

/// Template JSON for tests.
public enum TemplateFixture {
    /// The repository's root folder (found from this file's place in `Tests/TestSupport/`).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// `Samples/templates` of the repository.
    public static var samplesFolder: URL {
        repositoryRoot.appendingPathComponent("Samples/templates", isDirectory: true)
    }

    /// The shipped sample template files (`*.json`), sorted.
    public static func sampleFiles() -> [URL] {
        Files.names(in: samplesFolder).filter { $0.hasSuffix(".json") }.map { samplesFolder.appendingPathComponent($0) }
    }

    /// The shipped sample template `Samples/templates/<id>.json`, decoded.
    public static func sample(_ id: String) throws -> Template {
        let file = samplesFolder.appendingPathComponent("\(id).json")
        return try TemplateCoding().decode(Data(contentsOf: file), source: file.path)
    }

    /// The id of `sampleJSON`.
    public static let sampleID = "pump-inspection"

    /// A valid answer to every question of `sampleJSON`.
    public static let completeAnswers: [AnswerUpdate] = [
        AnswerUpdate(question: "guard", value: .words(["yes"])),
        AnswerUpdate(question: "leaks", value: .words(["None"])),
        AnswerUpdate(question: "noise", value: .words(["1"])),
        AnswerUpdate(question: "checks", value: .json(.array([.string("Alignment"), .string("Vibration")]))),
        AnswerUpdate(question: "pressure", value: .words(["4.5"])),
        AnswerUpdate(question: "hours", value: .json(.number(1200))),
        AnswerUpdate(question: "bearings", value: .words([#"[["61","2.5"],["58","1.9"],["70",null]]"#])),
        AnswerUpdate(question: "notes", value: .words(["all", "good"])),
    ]

    /// A template with every question type, with the default key names: a verbatim copy of
    /// `Samples/templates/pump-inspection.json`, so tests do not depend on the samples folder.
    /// Question indexes: 0 guard (true/false), 1 leaks (choice, any number; None only alone, a
    /// constraint), 2 leak_photo (photo, up to 4; relevant only when leaks names a place), 3 noise
    /// (choice, one), 4 checks (choice, up to 2), 5 pressure (number 0…16), 6 hours (whole number
    /// ≥ 0), 7 bearings (table 3 × 2, [2, 1] takes no value), 8 notes (short answer).
    public static let sampleJSON = #"""
    {
      "id": "pump-inspection",
      "title": "Centrifugal pump — monthly inspection",
      "version": 4,
      "questions": [
        {
          "id": "guard",
          "type": "trueFalse",
          "text": "Is the coupling guard in place and secure?",
          "help": "Check all four bolts. A loose guard counts as not in place."
        },
        {
          "id": "leaks",
          "type": "multipleChoice",
          "text": "Where do you see leaks?",
          "options": ["None", "Mechanical seal", "Suction flange", "Discharge flange", "Casing drain"],
          "Max-answers": 0,
          "constraint": "not(selected(., 'None') and count-selected(.) > 1)",
          "constraintMessage": "None cannot be chosen together with a place that leaks",
          "help": "Choose every place with visible fluid or residue."
        },
        {
          "id": "leak_photo",
          "type": "photo",
          "text": "Photo of each leak",
          "maxFiles": 4,
          "relevant": "${leaks} != '' and not(selected(${leaks}, 'None'))",
          "help": "One photo per place that leaks, close enough to see where the fluid comes out."
        },
        {
          "id": "noise",
          "type": "multipleChoice",
          "text": "How does the pump sound while running?",
          "options": ["Normal", "Humming", "Grinding", "Cavitation (gravel noise)"],
          "Max-answers": 1
        },
        {
          "id": "checks",
          "type": "multipleChoice",
          "text": "Which two follow-up checks are most urgent?",
          "options": ["Alignment", "Lubrication", "Vibration", "Seal flush", "Motor current"],
          "Max-answers": 2
        },
        {
          "id": "pressure",
          "type": "numeric",
          "text": "Discharge pressure (bar)",
          "min": 0,
          "max": 16,
          "help": "Read the gauge on the discharge side with the pump at duty point."
        },
        {
          "id": "hours",
          "type": "numeric",
          "integer": true,
          "text": "Running hours on the counter",
          "min": 0
        },
        {
          "id": "bearings",
          "type": "table",
          "text": "Bearing temperatures (°C) and vibration (mm/s)",
          "rows": ["Drive end", "Non-drive end", "Motor"],
          "columns": ["Temperature", "Vibration"],
          "noCells": [[2, 1]],
          "help": "The motor's vibration is measured in the annual survey, so its cell takes no value."
        },
        {
          "id": "notes",
          "type": "shortAnswer",
          "text": "Anything else the foreman should know?"
        }
      ]
    }
    """#

    /// `sampleJSON` decoded with the default keys.
    public static func sampleTemplate() throws -> Template {
        try TemplateCoding().decode(Data(sampleJSON.utf8), source: "sample.json")
    }

    /// A one-question template JSON wrapping `question` (a JSON object's text).
    public static func json(questions: [String], id: String = "t", version: String = "1") -> Data {
        Data(#"{"id": "\#(id)", "title": "T", "version": \#(version), "questions": [\#(questions.joined(separator: ", "))]}"#.utf8)
    }

    /// A small template with one question of each simple type, for store tests that do not need the sample.
    public static func tiny(id: String = "tiny") -> Template {
        Template(id: id, title: "Tiny", version: 1, questions: [
            Question(id: "ok", text: "All good?", kind: .trueFalse),
            Question(id: "note", text: "Note", kind: .shortAnswer),
        ])
    }
}
