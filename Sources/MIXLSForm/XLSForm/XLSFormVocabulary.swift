import Foundation
import MIKit

/// What XLSForm calls things and what MI calls them: types, columns, settings. One table each,
/// read by both the import and the export, so the two directions cannot drift apart.
enum XLSFormVocabulary {
    /// XLSForm question types (without a list) → MI's type name (`TemplateKeys.logical`) and the
    /// settings the XLSForm type implies (`integer` is a whole-number `numeric`).
    static let types: [String: (type: String, settings: [String: JSONValue])] = [
        "text": ("shortAnswer", [:]),
        "integer": ("numeric", ["integer": .bool(true)]),
        "decimal": ("numeric", ["integer": .bool(false)]),
        "date": ("date", [:]),
        "time": ("time", [:]),
        "datetime": ("dateTime", [:]),
        "geopoint": ("geopoint", [:]),
        "barcode": ("barcode", [:]),
        "range": ("range", [:]),
        "note": ("note", [:]),
        "image": ("photo", [:]),
        "photo": ("photo", [:]),
        "audio": ("audio", [:]),
        "video": ("video", [:]),
        "calculate": ("calculate", [:]),
        "acknowledge": ("trueFalse", [:]),
    ]

    /// MI's type name → the XLSForm type the export writes, when the settings match (the first
    /// entry of `types` whose settings the question has). A type with none (`table`) is written
    /// under its MI name, which only MI reads back.
    static func xlsformType(of miType: String, settings: [String: JSONValue]) -> (name: String, consumed: [String]) {
        for name in exportOrder {
            guard let entry = types[name], entry.type == miType else { continue }
            if entry.settings.allSatisfy({ settings[$0.key] == $0.value }) { return (name == "datetime" ? "dateTime" : name, Array(entry.settings.keys)) }
        }
        return (miType, [])
    }

    /// The order the export prefers names in (`image`, not `photo`).
    private static let exportOrder = ["text", "integer", "decimal", "date", "time", "datetime", "geopoint", "barcode", "range",
                                      "note", "image", "audio", "video", "calculate", "acknowledge"]

    /// Metadata rows: recorded by MI on every form whatever the template says (docs/xlsform.md),
    /// so they are taken and left out of the template.
    static let recordedMetadata: Set<String> = ["start", "end", "today", "deviceid", "username"]

    /// Types MI cannot honour, with what to do instead.
    static let refusedTypes: [String: String] = [
        "rank": "MI has no ranking question; use select_multiple, or one integer question per item",
        "trigger": "MI has no trigger; use acknowledge (a yes/no MI asks) instead",
        "signature": "MI cannot draw a signature; use image for a photo of it",
        "geotrace": "MI records single points only; use geopoint",
        "geoshape": "MI records single points only; use geopoint",
        "file": "MI attaches photos, audio and video only; use image, audio or video",
        "hidden": "use calculate with a calculation for a value the form keeps",
        "xml-external": "MI does not read external XML; put the values in the form",
        "csv-external": "MI does not read external CSV data; put the values in the form",
        "select_one_external": "MI does not read external choices; use select_one with the choices sheet",
        "select_multiple_external": "MI does not read external choices; use select_multiple with the choices sheet",
        "simserial": "MI does not record the SIM's serial; delete the row",
        "subscriberid": "MI does not record the subscriber id; delete the row",
        "phonenumber": "MI does not record the phone number; delete the row",
        "email": "MI does not record an e-mail address; delete the row",
        "audit": "MI keeps its own audit trail of every form; delete the row",
        "start-geopoint": "MI records where a form was started when the template asks for it; delete the row",
        "background-audio": "MI does not record sound in the background; delete the row",
        "background-geopoint": "MI does not record positions in the background; delete the row",
    ]

    /// Functions MI's expressions cannot evaluate, with what to do.
    static let refusedFunctions: [String: String] = [
        "pulldata": "pulldata() reads values from a CSV file at fill time, which MI does not; put the values in the form (a calculate, or choices)",
        "search": "search() looks values up in a CSV file at fill time, which MI does not; use select_one_from_file",
        "instance": "instance() reads a secondary instance, which MI does not; use choice_filter on the choices sheet",
        "jr:choice-name": "jr:choice-name() is not available in MI; compare the choice names themselves",
    ]

    /// The survey columns MI reads, by canonical name; `aliases` maps other spellings to them.
    static let surveyColumns: [String] = [
        "type", "name", "label", "hint", "required", "required_message", "relevant", "constraint", "constraint_message",
        "calculation", "default", "read_only", "choice_filter", "repeat_count", "appearance", "parameters", "media::image",
        miSettings,
    ]

    /// The column holding, as a JSON object, the settings of an MI question (or of the template,
    /// on the settings sheet) that XLSForm has no column for (`{"min": 0, "max": 16}`); the export
    /// writes it and the import reads it, so a template comes back whole.
    static let miSettings = "mi_settings"

    static let aliases: [String: String] = [
        "list_name": "list_name", "listname": "list_name",
        "relevance": "relevant", "jr:count": "repeat_count", "count": "repeat_count",
        "jr:constraintmsg": "constraint_message", "jr:requiredmsg": "required_message",
        "calculate": "calculation", "readonly": "read_only", "image": "media::image", "media:image": "media::image", "required_msg": "required_message", "constraint_msg": "constraint_message",
        "default_value": "default", "caption": "label",
    ]

    /// Columns that hold a text per language (`label::Español (es)`).
    static let translatable: Set<String> = ["label", "hint", "constraint_message", "required_message", "media::image"]

    /// The template key each survey column fills (for messages from the template's own checks).
    static let columnOfKey: [String: String] = [
        "id": "name", "text": "label", "help": "hint", "image": "media::image", "type": "type", "options": "type",
        "maxAnswers": "type", "relevant": "relevant", "constraint": "constraint", "constraintMessage": "constraint_message",
        "required": "required", "requiredMessage": "required_message", "calculation": "calculation", "default": "default",
        "readOnly": "read_only", "choiceFilter": "choice_filter", "repeatCount": "repeat_count", "integer": "type",
        "start": "parameters", "end": "parameters", "step": "parameters", "minAccuracy": "parameters", "questions": "type",
    ]

    /// A range's and a geopoint's `parameters` → MI keys.
    static let parameterKeys: [String: String] = [
        "start": "start", "end": "end", "step": "step", "capture-accuracy": "minAccuracy",
    ]

    /// The settings columns MI reads.
    static let settingsColumns: Set<String> = ["form_id", "version", "form_title", "default_language", "allow_choice_duplicates", miSettings]
}

extension String {
    /// Typographic quotes (‘ ’ “ ”, what a word processor or a phone keyboard types) as straight
    /// ones: pyxform reads expressions so.
    var straightQuotes: String {
        // ‘ ’ “ ” are U+2018, U+2019, U+201C, U+201D, each starting with the byte E2 in UTF-8.
        guard utf8.contains(0xE2) else { return self }
        guard contains(where: { "‘’“”".contains($0) }) else { return self }
        return String(map { character -> Character in
            switch character {
            case "‘", "’": return "'"
            case "“", "”": return "\""
            default: return character
            }
        })
    }
}

extension String {
    /// The words between runs of white space, as `split(whereSeparator: \.isWhitespace)` gives
    /// them; an ASCII text (a type cell, nearly always) split on its bytes.
    var words: [String] {
        let utf8 = self.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return split(whereSeparator: { $0.isWhitespace }).map(String.init) }
        return utf8.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) }).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension StringProtocol {
    /// Without leading and trailing white space and newlines — in Swift, without Foundation's
    /// `trimmingCharacters(in:)`, which on Linux goes through NSString for every cell.
    var trimmed: String {
        // Most cells start and end with a printable ASCII character: nothing to trim.
        let text = String(self)
        if let first = text.utf8.first, let last = text.utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return text
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[first...last])
        return String(result)
    }
}
