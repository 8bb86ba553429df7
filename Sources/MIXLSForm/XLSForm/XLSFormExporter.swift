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
        let languages = template.languages
        var exporter = XLSFormExporter(languages: languages.count > 1 ? languages : [])
        let json = coding.encode(template)
        guard case .object(var object) = json else { return [] }
        for item in object["questions"]?.arrayValue ?? [] { exporter.item(item) }
        object["questions"] = nil
        var settings: [String: String] = [
            "form_id": object.removeValue(forKey: "id")?.stringValue ?? template.id,
            "form_title": template.title,
            "version": String(template.version),
        ]
        // A title in several languages stays in mi_settings (XLSForm's form_title has one).
        if object["title"]?.stringValue != nil { object["title"] = nil }
        object["version"] = nil
        if let language = object.removeValue(forKey: "defaultLanguage")?.stringValue { settings["default_language"] = language }
        if !object.isEmpty { settings[XLSFormVocabulary.miSettings] = XLSFormExporter.json(object) }
        return exporter.sheets(settings: settings)
    }
}

/// Writes template JSON (logical keys) as XLSForm rows.
struct XLSFormExporter {
    /// The template's languages, the default first, when it has several (then every text column
    /// is written once per language, `label::English (en)`); empty otherwise.
    let languages: [String]
    private var survey: [[String: String]] = []
    private var choices: [[String: String]] = []
    private var choiceAttributes: [String] = []

    /// The survey columns, in the order written; only those some row fills are written.
    init(languages: [String]) { self.languages = languages }

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
            if let text = object["text"] { write(text, to: "label", in: &row) }
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
            if let value = object.removeValue(forKey: key) { write(value, to: column, in: &row) }
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
            var row = ["list_name": list, "name": label]
            write(option, to: "label", in: &row)
            choices.append(row)
        case .object(var fields):
            var row = ["list_name": list]
            row["name"] = fields.removeValue(forKey: "name")?.stringValue
            if let label = fields.removeValue(forKey: "label") { write(label, to: "label", in: &row) }
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                if !choiceAttributes.contains(key) { choiceAttributes.append(key) }
                row["attr:" + key] = value.stringValue
            }
            choices.append(row)
        case .null, .bool, .number, .array:
            break
        }
    }

    /// A text (a string, or an object of language → text) into `column`, or into its column per
    /// language when the template has several; a plain string reads the same in every language.
    private func write(_ value: JSONValue, to column: String, in row: inout [String: String]) {
        guard !languages.isEmpty, XLSFormVocabulary.translatable.contains(column) else {
            if let text = value.stringValue { row[column] = text }
            return
        }
        for language in languages {
            switch value {
            case .string(let text): row[Self.column(column, language)] = text
            case .object(let texts): if let text = texts[language]?.stringValue { row[Self.column(column, language)] = text }
            case .null, .bool, .number, .array: break
            }
        }
    }

    private static func column(_ name: String, _ language: String) -> String { "\(name)::\(language)" }

    /// A column name of the survey order with its language columns in place of a translatable one.
    private func expanded(_ columns: [String]) -> [String] {
        guard !languages.isEmpty else { return columns }
        return columns.flatMap { column in
            XLSFormVocabulary.translatable.contains(column) ? languages.map { Self.column(column, $0) } : [column]
        }
    }

    func sheets(settings: [String: String]) -> [XLSXWriter.Sheet] {
        let labels = Set(expanded(["label"]))
        let surveyColumns = expanded(Self.surveyOrder).filter { column in column == "type" || column == "name" || labels.contains(column) || survey.contains { $0[column] != nil } }
        let surveyRows: [[XLSXValue?]] = [surveyColumns.map { .string($0) }]
            + survey.map { row in surveyColumns.map { row[$0].map(XLSXValue.string) } }
        let choiceColumns = ["list_name", "name"] + expanded(["label"])
        let choiceRows: [[XLSXValue?]] = [(choiceColumns + choiceAttributes).map { .string($0) }]
            + choices.map { row in choiceColumns.map { row[$0].map(XLSXValue.string) } + choiceAttributes.map { row["attr:" + $0].map(XLSXValue.string) } }
        let settingsColumns = ["form_id", "version", "form_title", "default_language", XLSFormVocabulary.miSettings].filter { settings[$0] != nil }
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
