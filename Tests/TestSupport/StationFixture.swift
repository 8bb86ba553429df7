import Foundation
import MIKit

/// A pump station check with a group that may be not relevant, a counted repeat of simple
/// questions (drawn as a table) and an open repeat with a photo question and a nested repeat
/// (drawn as a section per instance), and a form of it filled by path. The readers' tests
/// (the PDF, the office submission page) draw it; `OfficeRepeatsTests` makes the same with `mi`.
public enum StationFixture {
    public static let json = #"""
        {"id": "station-check", "title": "Pump station check", "version": 1, "questions": [
          {"id": "site", "type": "shortAnswer", "text": "Site name"},
          {"id": "running", "type": "trueFalse", "text": "Is the station running?"},
          {"id": "power", "type": "group", "text": "Power supply", "relevant": "${running} = 'true'", "questions": [
            {"id": "voltage", "type": "numeric", "text": "Supply voltage (V)"}
          ]},
          {"id": "npumps", "type": "numeric", "text": "How many pumps?"},
          {"id": "pumps", "type": "repeat", "text": "Pump", "repeatCount": "${npumps}", "questions": [
            {"id": "amps", "type": "numeric", "text": "Current (A)"},
            {"id": "state", "type": "multipleChoice", "text": "Pump state", "options": ["ok", "worn"]},
            {"id": "wear", "type": "shortAnswer", "text": "Where is the wear?", "relevant": "selected(${state}, 'worn')"}
          ]},
          {"id": "tanks", "type": "repeat", "text": "Tank", "questions": [
            {"id": "level", "type": "numeric", "text": "Tank level (%)"},
            {"id": "tankphoto", "type": "photo", "text": "Photo of the tank"},
            {"id": "valves", "type": "repeat", "text": "Valve", "questions": [
              {"id": "valve", "type": "shortAnswer", "text": "Valve state"}
            ]}
          ]}
        ]}
        """#

    public static func template() throws -> Template {
        try TemplateCoding().decode(Data(json.utf8), source: "station-check.json")
    }

    /// The photo of tank 1, as `Workflow.attach` names it.
    public static let tankPhoto = "Qid8_1(1).jpg"

    /// Not running (the power group is not relevant), two pumps (the second's wear not
    /// relevant), two tanks — the first with a photo and two valves, the second with none.
    public static func form(_ wear: String = "Seal face") throws -> Form {
        var form = Form(id: FormID("3C0F7D55-8A44-4E34-A3D5-5B0E5E1A9C21") ?? FormID(), name: "station-1", user: "ana",
                        template: try template(), createdAt: Date(timeIntervalSince1970: 1_795_000_000))
        form.answers = [
            "site": Answer(value: .text("North plant")), "running": Answer(value: .bool(false)),
            "npumps": Answer(value: .number(2)),
            "pumps[1]/amps": Answer(value: .number(12)), "pumps[1]/state": Answer(value: .choices(["worn"])),
            "pumps[1]/wear": Answer(value: .text(wear), comment: "seen at start-up"),
            "pumps[2]/amps": Answer(value: .number(9.5)), "pumps[2]/state": Answer(value: .choices(["ok"])),
            "tanks[1]/level": Answer(value: .number(80)), "tanks[1]/tankphoto": Answer(media: [tankPhoto]),
            "tanks[1]/valves[1]/valve": Answer(value: .text("closed")), "tanks[1]/valves[2]/valve": Answer(value: .text("half open")),
            "tanks[2]/level": Answer(value: .number(35)),
        ]
        form.repeats = ["tanks": 2, "tanks[1]/valves": 2]
        form.status = .completed
        return form
    }
}
