import Foundation
import MIKit

extension XLSForm {
    /// The template as an XLSForm workbook's bytes: `survey`, `choices` (one list per question
    /// with options, named after the question) and `settings`. What XLSForm has no column for (a
    /// numeric question's bounds, a table's rows, the template's scoring) is written as a JSON
    /// object in the `mi_settings` column, so importing the file gives the same template back.
    public static func export(_ template: Template) throws -> Data {
        try XLSXWriter().data(sheets(template))
    }

    /// The three sheets `export` writes.
    public static func sheets(_ template: Template) -> [XLSXWriter.Sheet] {
        var exporter = XLSFormExporter()
        let json = coding.encode(template)
        guard case .object(var object) = json else { return [] }
        for item in object["questions"]?.arrayValue ?? [] { exporter.item(item) }
        object["questions"] = nil
        var settings: [String: String] = [
            "form_id": object.removeValue(forKey: "id")?.stringValue ?? template.id,
            "form_title": object.removeValue(forKey: "title")?.stringValue ?? template.title,
            "version": String(template.version),
        ]
        object["version"] = nil
        if !object.isEmpty { settings[XLSFormVocabulary.miSettings] = XLSFormExporter.json(object) }
        return exporter.sheets(settings: settings)
    }
}

/// Writes template JSON (logical keys) as XLSForm rows.
struct XLSFormExporter {
    private var survey: [[String: String]] = []
    private var choices: [[String: String]] = []
    private var choiceAttributes: [String] = []

    /// The survey columns, in the order written; only those some row fills are written.
    private static let surveyOrder = XLSFormVocabulary.surveyColumns
    /// Question keys → survey columns, for the keys written as they are.
    private static let direct: [(key: String, column: String)] = [
        ("text", "label"), ("help", "hint"), ("image", "media::image"), ("relevant", "relevant"), ("constraint", "constraint"),
        ("constraintMessage", "constraint_message"), ("requiredMessage", "required_message"), ("calculation", "calculation"),
        ("default", "default"), ("choiceFilter", "choice_filter"),
    ]

    mutating func item(_ json: JSONValue) {
        guard case .object(var object) = json else { return }
        let id = object.removeValue(forKey: "id")?.stringValue ?? ""
        let type = object.removeValue(forKey: "type")?.stringValue ?? ""
        if type == "group" || type == "repeat", case .array(let items)? = object.removeValue(forKey: "questions") {
            var row = ["type": "begin_\(type)", "name": id]
            if let text = object["text"]?.stringValue { row["label"] = text }
            if let relevant = object["relevant"]?.stringValue { row["relevant"] = relevant }
            switch object["repeatCount"] {
            case .number(let count)?: row["repeat_count"] = formatNumber(count)
            case .string(let expression)?: row["repeat_count"] = expression
            case nil, .null?, .bool?, .array?, .object?: break
            }
            survey.append(row)
            for item in items { self.item(item) }
            survey.append(["type": "end_\(type)"])
            return
        }
        var row = ["name": id]
        for (key, column) in Self.direct {
            if let text = object.removeValue(forKey: key)?.stringValue { row[column] = text }
        }
        switch object.removeValue(forKey: "required") {
        case .bool(let flag)?: row["required"] = flag ? "yes" : "no"
        case .string(let expression)?: row["required"] = expression
        case nil, .null?, .number?, .array?, .object?: break
        }
        if object.removeValue(forKey: "readOnly")?.boolValue == true { row["read_only"] = "yes" }

        if type == "multipleChoice", case .array(let options)? = object.removeValue(forKey: "options") {
            let maxAnswers = object.removeValue(forKey: "maxAnswers")?.integerValue ?? 1
            row["type"] = (maxAnswers == 1 ? "select_one " : "select_multiple ") + id
            if maxAnswers > 1 { object["maxAnswers"] = .number(Double(maxAnswers)) }
            for option in options { choice(option, list: id) }
        } else {
            let (name, consumed) = XLSFormVocabulary.xlsformType(of: type, settings: object)
            row["type"] = name
            for key in consumed { object[key] = nil }
            var parameters: [String] = []
            for (parameter, key) in XLSFormVocabulary.parameterKeys.sorted(by: { Self.parameterOrder($0.key) < Self.parameterOrder($1.key) }) {
                if case .number(let number)? = object[key], type == "range" || key == "minAccuracy" {
                    parameters.append("\(parameter)=\(formatNumber(number))")
                    object[key] = nil
                }
            }
            if !parameters.isEmpty { row["parameters"] = parameters.joined(separator: " ") }
        }
        if !object.isEmpty { row[XLSFormVocabulary.miSettings] = Self.json(object) }
        survey.append(row)
    }

    private static func parameterOrder(_ name: String) -> Int {
        ["start", "end", "step", "capture-accuracy"].firstIndex(of: name) ?? 9
    }

    private mutating func choice(_ option: JSONValue, list: String) {
        switch option {
        case .string(let label):
            choices.append(["list_name": list, "name": label, "label": label])
        case .object(var fields):
            var row = ["list_name": list]
            row["name"] = fields.removeValue(forKey: "name")?.stringValue
            row["label"] = fields.removeValue(forKey: "label")?.stringValue
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                if !choiceAttributes.contains(key) { choiceAttributes.append(key) }
                row["attr:" + key] = value.stringValue
            }
            choices.append(row)
        case .null, .bool, .number, .array:
            break
        }
    }

    func sheets(settings: [String: String]) -> [XLSXWriter.Sheet] {
        let surveyColumns = Self.surveyOrder.filter { column in column == "type" || column == "name" || column == "label" || survey.contains { $0[column] != nil } }
        let surveyRows: [[XLSXValue?]] = [surveyColumns.map { .string($0) }]
            + survey.map { row in surveyColumns.map { row[$0].map(XLSXValue.string) } }
        let choiceColumns = ["list_name", "name", "label"]
        let choiceRows: [[XLSXValue?]] = [(choiceColumns + choiceAttributes).map { .string($0) }]
            + choices.map { row in choiceColumns.map { row[$0].map(XLSXValue.string) } + choiceAttributes.map { row["attr:" + $0].map(XLSXValue.string) } }
        let settingsColumns = ["form_id", "version", "form_title", XLSFormVocabulary.miSettings].filter { settings[$0] != nil }
        let settingsRows: [[XLSXValue?]] = [settingsColumns.map { .string($0) }, settingsColumns.map { settings[$0].map(XLSXValue.string) }]
        return [
            XLSXWriter.Sheet(name: "survey", rows: surveyRows, boldFirstRow: true),
            XLSXWriter.Sheet(name: "choices", rows: choiceRows, boldFirstRow: true),
            XLSXWriter.Sheet(name: "settings", rows: settingsRows, boldFirstRow: true),
        ]
    }

    /// Compact JSON with sorted keys.
    static func json(_ object: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(JSONValue.object(object))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
