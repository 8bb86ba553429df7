import Foundation
import MIKit

/// XLSForm ⇄ MI template: the one place both `mi templates import|export` and mi-server's office
/// convert (docs/xlsform.md). An XLSForm is read into MI's template JSON (logical key names)
/// and that JSON is judged by MI's own template reader (`TemplateCoding`), so an imported template
/// obeys every rule a JSON one does; each problem is reported at its sheet, row and column.
public enum XLSForm {
    /// The key names the conversion writes and reads template JSON with.
    static let coding = TemplateCoding(keys: .logical, refusesControlCharacters: true)

    /// Reads the XLSForm at `url`; a `select_one_from_file` CSV is read from beside it.
    public static func read(contentsOf url: URL, limits: XLSXLimits = .default) throws -> XLSFormImport {
        let name = url.lastPathComponent
        let workbook: XLSXWorkbook
        do {
            workbook = try XLSXWorkbook(contentsOf: url, limits: limits)
        } catch let error as XLSXError {
            throw XLSFormError(file: name, problems: [XLSFormProblem(sheet: nil, message: error.errorDescription ?? "\(error)")])
        }
        let folder = url.deletingLastPathComponent()
        return try read(workbook, fileName: name) { file in
            guard SafeName.problem(file) == nil else { return nil }
            return try? Data(contentsOf: folder.appendingPathComponent(file))
        }
    }

    /// Reads an XLSForm held in memory (an upload); `files` are the CSVs uploaded with it, by name.
    public static func read(data: Data, fileName: String, files: [String: Data], limits: XLSXLimits = .default) throws -> XLSFormImport {
        let workbook: XLSXWorkbook
        do {
            workbook = try XLSXWorkbook(data: data, name: fileName, limits: limits)
        } catch let error as XLSXError {
            throw XLSFormError(file: fileName, problems: [XLSFormProblem(sheet: nil, message: error.errorDescription ?? "\(error)")])
        }
        return try read(workbook, fileName: fileName) { files[$0] }
    }

    /// Reads a workbook already opened; `file` gives the bytes of a CSV the form names (nil: not there).
    public static func read(_ workbook: XLSXWorkbook, fileName: String, file: @escaping @Sendable (String) -> Data?) throws -> XLSFormImport {
        var importer = XLSFormImporter(workbook: workbook, fileName: fileName, file: file)
        return try importer.run()
    }

    /// Whether a file name is an XLSForm's (`.xlsx`, any case).
    public static func isXLSForm(_ name: String) -> Bool {
        (name as NSString).pathExtension.lowercased() == "xlsx"
    }
}

/// One import: the sheets read into template JSON, every problem collected.
struct XLSFormImporter {
    let workbook: XLSXWorkbook
    let fileName: String
    let file: @Sendable (String) -> Data?

    private var problems: [XLSFormProblem] = []
    private var warnings: [XLSFormProblem] = []
    /// Survey sheets of at least this many rows are read in two halves at once (`readRows`).
    var rowsReadInHalves = 500
    /// The survey row each question and group id came from.
    private var rowOfID: [String: Int] = [:]
    /// The `options` written for a list of the choices sheet, by how it is asked (filtered or
    /// not, with or without `or_other`) and its name.
    private var optionsJSON: [String: JSONValue] = [:]
    /// The column language of the default language's columns (nil: the columns without one).
    private var language: String?
    /// Every column language the labels are written in, in column order (nil: no language).
    private var columnLanguages: [String?] = []
    /// The name a column language has in the template: its own, or for the columns without one
    /// `default_language`, else `default` (as pyxform calls it).
    private var plainLanguageName = "default"

    init(workbook: XLSXWorkbook, fileName: String, file: @escaping @Sendable (String) -> Data?) {
        self.workbook = workbook
        self.fileName = fileName
        self.file = file
    }

    struct Option {
        var row: Int
        var name: String
        var label: String
        /// The label in every language (keyed by the template's language names); empty when the
        /// form has one language or the label reads the same in all.
        var labels: [String: String] = [:]
        var attributes: [String: String]
    }

    /// A group or repeat being read, or the form itself (`kind` nil).
    private struct Frame {
        var kind: String?
        var object: [String: JSONValue]
        var items: [JSONValue] = []
        var record: XLSFormTable.Record?
    }

    mutating func run() throws -> XLSFormImport {
        guard let surveySheet = workbook.sheet(named: "survey") else {
            throw XLSFormError(file: fileName, problems: [XLSFormProblem(sheet: nil, message:
                "the workbook has no sheet named survey (it has \(workbook.sheetNames.map { "\"\($0)\"" }.joined(separator: ", "))); an XLSForm lists its questions on a sheet named survey")])
        }
        let survey = XLSFormTable(surveySheet)
        let choices = workbook.sheet(named: "choices").map(XLSFormTable.init)
        let settings = workbook.sheet(named: "settings").map(XLSFormTable.init)
        let setting = settings?.records.first

        // Every language is read; the default is default_language, else the columns without a
        // language (pyxform's `default`), else the first.
        let defaultLanguage = settings.flatMap { table in setting.flatMap { table.text($0, table.column("default_language")) } }
        var languages: [String?] = []
        for language in survey.languages + (choices?.languages ?? []) where !languages.contains(language) { languages.append(language) }
        if let defaultLanguage, languages.contains(defaultLanguage) {
            language = defaultLanguage
        } else if languages.contains(nil) || languages.isEmpty {
            language = nil
        } else {
            language = languages.first ?? nil
        }
        columnLanguages = languages
        plainLanguageName = defaultLanguage ?? "default"

        guard survey.column("type") != nil else {
            throw XLSFormError(file: fileName, problems: [survey.problem(nil, named: "type",
                "the survey sheet has no type column in its first row (headers found: \(survey.columns.map(\.header).joined(separator: ", "))); add one")])
        }
        let allowDuplicates = settings.flatMap { table in setting.flatMap { table.text($0, table.column("allow_choice_duplicates")) } }
            .map { ["yes", "true", "1"].contains($0.lowercased()) } ?? false
        var lists = choices.map { readChoices($0, allowDuplicates: allowDuplicates) } ?? [:]
        // `or_other` adds "other" to its list, as pyxform does: every question of that list offers it.
        let typeColumn = survey.column("type")
        for record in survey.records {
            // Only a type ending in `or_other` (any case) matters here: its last letter is an r.
            guard let type = survey.text(record, typeColumn), type.utf8.last == UInt8(ascii: "r") || type.utf8.last == UInt8(ascii: "R") else { continue }
            let words = type.words
            guard words.count >= 2, words.last?.lowercased() == "or_other", let select = Self.select(words.map { $0.lowercased() }),
                  !select.fromFile, select.consumed == words.count - 2 else { continue }
            let list = words[words.count - 2]
            if var options = lists[list], !options.contains(where: { $0.name == "other" }) {
                options.append(Option(row: record.row, name: "other", label: "Other", attributes: [:]))
                lists[list] = options
            }
        }

        var stack = [Frame(kind: nil, object: [:])]
        var appearances: [String: [Int]] = [:]
        readRows(survey, lists: lists, choicesSheet: choices?.sheet, stack: &stack, appearances: &appearances)
        while stack.count > 1, let open = stack.popLast() {
            let kind = open.kind ?? "group"
            problems.append(survey.problem(open.record, named: "type",
                "begin \(kind) \(open.object["id"]?.stringValue ?? "") is never closed; add an end \(kind) row after its last question"))
        }
        for (appearance, rows) in appearances.sorted(by: { ($0.value.first ?? 0) < ($1.value.first ?? 0) }) {
            let where_ = rows.count == 1 ? "row \(rows[0])" : "rows \(rows.map(String.init).joined(separator: ", "))"
            warnings.append(XLSFormProblem(sheet: survey.sheet, column: "appearance",
                message: "appearance \"\(appearance)\" (\(where_)): MI does not draw it; the questions are asked as usual"))
        }

        var template: [String: JSONValue] = [:]
        if let settings, let setting { readSettings(settings, setting, into: &template) }
        if template["id"] == nil {
            template["id"] = .string(((fileName as NSString).lastPathComponent as NSString).deletingPathExtension)
        }
        if template["title"] == nil { template["title"] = template["id"] }
        if isMultilingual, template["defaultLanguage"] == nil { template["defaultLanguage"] = .string(languageName(language)) }
        if template["version"] == nil { template["version"] = .number(1) }
        template["questions"] = .array(stack.first?.items ?? [])
        guard problems.isEmpty else { throw XLSFormError(file: fileName, problems: problems) }
        do {
            let result = try XLSForm.coding.decode(.object(template), source: fileName)
            return XLSFormImport(template: result, warnings: warnings)
        } catch let error as TemplateError {
            throw XLSFormError(file: fileName, problems: error.problems.map { locate($0, survey: survey, settings: settings, setting: setting) })
        }
    }

    // MARK: - Choices

    private mutating func readChoices(_ table: XLSFormTable, allowDuplicates: Bool) -> [String: [Option]] {
        guard let listColumn = table.column("list_name") else {
            if !table.records.isEmpty {
                problems.append(table.problem(nil, named: "list_name", "the choices sheet has no list_name column in its first row; add one"))
            }
            return [:]
        }
        var lists: [String: [Option]] = [:]
        let columns = choiceColumns(table)
        for record in table.records {
            guard let list = table.text(record, listColumn) else {
                problems.append(table.problem(record, listColumn, "the choice has no list_name; give the list it belongs to, or delete the row"))
                continue
            }
            if let option = readOption(record, table: table, columns, list: lists[list] ?? [], allowDuplicates: allowDuplicates) {
                lists[list, default: []].append(option)
            }
        }
        return lists
    }

    /// The columns a choices table's rows are read from, found once for the table.
    private struct ChoiceColumns {
        var name: XLSFormTable.Column?
        var label: TextColumns
        /// The columns that become an option's attributes (`choice_filter` reads them).
        var attributes: [XLSFormTable.Column]
    }

    private func choiceColumns(_ table: XLSFormTable) -> ChoiceColumns {
        let skipped: Set<String> = ["list_name", "name", "label", "media::image", XLSFormVocabulary.miSettings]
        return ChoiceColumns(name: table.column("name"), label: textColumns(table, "label"),
                             attributes: table.columns.filter { !skipped.contains($0.name) && !XLSFormVocabulary.translatable.contains($0.name) })
    }

    /// One choice row (of the choices sheet or a CSV); nil when it is refused or dropped.
    private mutating func readOption(_ record: XLSFormTable.Record, table: XLSFormTable, _ columns: ChoiceColumns, list: [Option],
                                     allowDuplicates: Bool) -> Option? {
        let nameColumn = columns.name
        guard let name = table.text(record, nameColumn) else {
            problems.append(table.problem(record, named: "name", "the choice has no name; give the name answers store (a word or a number)"))
            return nil
        }
        let labelColumn = columns.label.preferred
        let labels = localized(record, table, columns.label, fallback: name)
        let label = labels.text ?? name
        // A name with spaces is MI's plain option (its label is its name); otherwise one word.
        if name != label, name.unicodeScalars.contains(where: { CharacterSet.whitespacesAndNewlines.contains($0) }) {
            problems.append(table.problem(record, nameColumn,
                "the choice name \"\(name)\" has white space; MI writes chosen names separated by spaces, so use one word (put the words in the label)"))
            return nil
        }
        if let earlier = list.first(where: { $0.name == name }) {
            if allowDuplicates {
                warnings.append(table.problem(record, nameColumn,
                    "the choice name \"\(name)\" repeats row \(earlier.row)'s; MI keeps the first (answers store names, so two options of one name cannot be told apart)"))
            } else {
                problems.append(table.problem(record, nameColumn,
                    "the choice name \"\(name)\" is already row \(earlier.row)'s in this list; give each choice its own name (or set allow_choice_duplicates to yes in settings)"))
            }
            return nil
        }
        if let earlier = list.first(where: { $0.label == label }) {
            problems.append(table.problem(record, labelColumn ?? nameColumn,
                "the choice label \"\(label)\" is already row \(earlier.row)'s in this list; MI shows options by label, so give each its own"))
            return nil
        }
        var attributes: [String: String] = [:]
        for column in columns.attributes {
            if let value = table.text(record, column) { attributes[column.header] = value }
        }
        return Option(row: record.row, name: name, label: label, labels: labels.translations, attributes: attributes)
    }

    // MARK: - Survey

    /// The survey's rows. A long survey is read in two halves, one per core, each by a copy of
    /// this importer, cut at a row outside every group and repeat near the middle; when no name
    /// is given in both halves, the halves' items, problems and warnings put together are what
    /// one pass gives. When one is (or the groups do not close as they open), the survey is read
    /// again in one pass, so the problems are the same, in the same order, at any length.
    private mutating func readRows(_ survey: XLSFormTable, lists: [String: [Option]], choicesSheet: String?,
                                   stack: inout [Frame], appearances: inout [String: [Int]]) {
        let columns = surveyColumns(survey)
        if survey.records.count >= rowsReadInHalves, let split = Self.topLevelMiddle(survey, columns.type) {
            var reader = self
            (reader.problems, reader.warnings, reader.rowOfID) = ([], [], [:])
            let base = reader
            let slots = Slots<(importer: XLSFormImporter, stack: [Frame], appearances: [String: [Int]])>(count: 2)
            WorkPieces.run([0..<split, split..<survey.records.count]) { piece, range in
                var importer = base
                var stack = [Frame(kind: nil, object: [:])]
                var appearances: [String: [Int]] = [:]
                for index in range {
                    importer.readRow(survey.records[index], survey: survey, columns, lists: lists, choicesSheet: choicesSheet,
                                     stack: &stack, appearances: &appearances)
                }
                slots.set(piece, (importer, stack, appearances))
            }
            let read = slots.values()
            let (first, second) = (read[0], read[1])
            let (smaller, larger) = first.importer.rowOfID.count <= second.importer.rowOfID.count
                ? (first.importer.rowOfID, second.importer.rowOfID) : (second.importer.rowOfID, first.importer.rowOfID)
            if first.stack.count == 1, let top = first.stack.first, let rest = second.stack.first,
               !smaller.keys.contains(where: { larger[$0] != nil }) {
                problems += first.importer.problems + second.importer.problems
                warnings += first.importer.warnings + second.importer.warnings
                rowOfID.merge(first.importer.rowOfID) { own, _ in own }
                rowOfID.merge(second.importer.rowOfID) { own, _ in own }
                appearances = first.appearances
                appearances.merge(second.appearances) { $0 + $1 }
                stack = second.stack
                stack[0].items = top.items + rest.items
                return
            }
        }
        for record in survey.records {
            readRow(record, survey: survey, columns, lists: lists, choicesSheet: choicesSheet, stack: &stack, appearances: &appearances)
        }
    }

    /// The record nearest the survey's middle that stands outside every group and repeat, when
    /// every begin has its end of the same kind (else nil: the survey is read in one pass).
    static func topLevelMiddle(_ survey: XLSFormTable, _ typeColumn: XLSFormTable.Column?) -> Int? {
        var open: [String] = []
        var best: Int?
        let middle = survey.records.count / 2
        for (index, record) in survey.records.enumerated() {
            if open.isEmpty, index > 0, abs(index - middle) < abs((best ?? 0) - middle) { best = index }
            guard let type = survey.text(record, typeColumn), let first = type.utf8.first,
                  first == UInt8(ascii: "b") || first == UInt8(ascii: "B") || first == UInt8(ascii: "e") || first == UInt8(ascii: "E"),
                  let (isBegin, kind) = groupKeyword(type.words.map { $0.lowercased() }) else { continue }
            if isBegin {
                open.append(kind)
            } else {
                guard open.last == kind else { return nil }
                open.removeLast()
            }
        }
        return open.isEmpty ? best : nil
    }

    /// The survey's columns, found once (every row reads them).
    private struct SurveyColumns {
        var type, name, relevant, constraint, required, calculation, defaultValue, readOnly: XLSFormTable.Column?
        var choiceFilter, repeatCount, appearance, parameters, miSettings: XLSFormTable.Column?
        var label, hint, image, constraintMessage, requiredMessage: TextColumns
    }

    private func surveyColumns(_ survey: XLSFormTable) -> SurveyColumns {
        SurveyColumns(type: survey.column("type"), name: survey.column("name"), relevant: survey.column("relevant"),
                      constraint: survey.column("constraint"), required: survey.column("required"),
                      calculation: survey.column("calculation"), defaultValue: survey.column("default"),
                      readOnly: survey.column("read_only"), choiceFilter: survey.column("choice_filter"),
                      repeatCount: survey.column("repeat_count"), appearance: survey.column("appearance"),
                      parameters: survey.column("parameters"), miSettings: survey.column(XLSFormVocabulary.miSettings),
                      label: textColumns(survey, "label"), hint: textColumns(survey, "hint"), image: textColumns(survey, "media::image"),
                      constraintMessage: textColumns(survey, "constraint_message"),
                      requiredMessage: textColumns(survey, "required_message"))
    }

    private mutating func readRow(_ record: XLSFormTable.Record, survey: XLSFormTable, _ columns: SurveyColumns, lists: [String: [Option]],
                                  choicesSheet: String?, stack: inout [Frame], appearances: inout [String: [Int]]) {
        let typeColumn = columns.type
        let nameColumn = columns.name
        let name = survey.text(record, nameColumn)
        guard let rawType = survey.text(record, typeColumn) else {
            if name != nil || survey.text(record, columns.label.preferred) != nil {
                problems.append(survey.problem(record, typeColumn, "the row has no type; give its type (text, integer, select_one LIST, …) or delete the row"))
            }
            return
        }
        let words = rawType.words
        let keyword = words.map { $0.lowercased() }
        let head = keyword.joined(separator: " ")

        // Groups and repeats.
        if let (isBegin, kind) = Self.groupKeyword(keyword) {
            if isBegin {
                guard let name else {
                    problems.append(survey.problem(record, nameColumn, "begin \(kind) needs a name; give the \(kind) a name"))
                    stack.append(Frame(kind: kind, object: ["id": .string("?")], record: record))
                    return
                }
                claim(name, record: record, survey: survey, column: nameColumn)
                var object: [String: JSONValue] = ["type": .string(kind), "id": .string(name)]
                if let label = localizedJSON(record, survey, columns.label) { object["text"] = label }
                if let relevant = expression(record, columns.relevant, survey) { object["relevant"] = .string(relevant) }
                if let count = survey.text(record, columns.repeatCount) {
                    if kind == "group" {
                        problems.append(survey.problem(record, columns.repeatCount, "a group has no count; make it begin repeat, or empty the cell"))
                    } else if let number = Double(count) {
                        object["repeatCount"] = .number(number)
                    } else if let text = expression(record, columns.repeatCount, survey) {
                        object["repeatCount"] = .string(text)
                    }
                }
                if let appearance = survey.text(record, columns.appearance) {
                    appearances[appearance, default: []].append(record.row)
                }
                stack.append(Frame(kind: kind, object: object, record: record))
            } else {
                guard stack.count > 1, let open = stack.last else {
                    problems.append(survey.problem(record, typeColumn, "end \(kind) without a begin \(kind) before it; delete the row or add the begin"))
                    return
                }
                guard open.kind == kind else {
                    problems.append(survey.problem(record, typeColumn,
                        "end \(kind) closes begin \(open.kind ?? "group") \(open.object["id"]?.stringValue ?? "") of row \(open.record?.row ?? 0); end the \(open.kind ?? "group") first"))
                    return
                }
                stack.removeLast()
                var object = open.object
                object["questions"] = .array(open.items)
                stack[stack.count - 1].items.append(.object(object))
            }
            return
        }

        if XLSFormVocabulary.recordedMetadata.contains(head) { return }
        if let reason = XLSFormVocabulary.refusedTypes[head] ?? XLSFormVocabulary.refusedTypes[keyword.first ?? ""] {
            problems.append(survey.problem(record, typeColumn, "MI cannot take type \(rawType): \(reason)"))
            return
        }
        guard let name else {
            problems.append(survey.problem(record, nameColumn, "the question has no name; give it a name (letters, digits, _), unique in the form"))
            return
        }
        claim(name, record: record, survey: survey, column: nameColumn)

        // Room for the keys a question usually gets, so the object is not rehashed as it grows.
        var object = [String: JSONValue](minimumCapacity: 12)
        object["id"] = .string(name)
        object["text"] = localizedJSON(record, survey, columns.label, fallback: name) ?? .string(name)
        if let hint = localizedJSON(record, survey, columns.hint) { object["help"] = hint }
        if let image = localizedJSON(record, survey, columns.image) { object["image"] = image }

        var otherFollowUp: [String: JSONValue]?
        if let select = Self.select(keyword) {
            var argument = Array(words.dropFirst(select.consumed))
            var orOther = false
            if argument.last?.lowercased() == "or_other" { orOther = true; argument.removeLast() }
            guard argument.count == 1, let source = argument.first else {
                problems.append(survey.problem(record, typeColumn,
                    "\(select.multiple ? "select_multiple" : "select_one")\(select.fromFile ? "_from_file" : "") needs \(select.fromFile ? "a CSV file name" : "the name of a list on the choices sheet") after it"))
                return
            }
            var options: [Option]
            if select.fromFile {
                guard let data = file(source) else {
                    problems.append(survey.problem(record, typeColumn,
                        "the choices file \(source) is missing; put it beside the XLSForm (or upload it with the XLSForm)"))
                    return
                }
                let table = ChoicesCSV.rows(data, name: source)
                guard table.column("name") != nil else {
                    problems.append(table.problem(nil, named: "name", "the choices file has no name column in its first row; add name and label"))
                    return
                }
                options = []
                let columns = choiceColumns(table)
                for choice in table.records {
                    if let option = readOption(choice, table: table, columns, list: options, allowDuplicates: false) { options.append(option) }
                }
            } else {
                guard let list = lists[source] else {
                    problems.append(survey.problem(record, typeColumn,
                        "there is no list \(source) on the choices sheet\(choicesSheet == nil ? " (the workbook has no choices sheet)" : ""); add its choices, or correct the name"))
                    return
                }
                options = list
            }
            if orOther {
                if !options.contains(where: { $0.name == "other" }) {
                    options.append(Option(row: record.row, name: "other", label: "Other", attributes: [:]))
                }
                otherFollowUp = ["id": .string(name + "_other"), "type": .string("shortAnswer"), "text": .string("Specify other."),
                                 "relevant": .string("selected(${\(name)}, 'other')")]
            }
            let filtered = survey.text(record, columns.choiceFilter) != nil
            object["type"] = .string("multipleChoice")
            object["maxAnswers"] = .number(select.multiple ? 0 : 1)
            // A list of the choices sheet is written out once for all the questions asking it
            // the same way (a yes/no list serves dozens).
            let written = select.fromFile ? nil : "\(filtered ? "f" : "-")\(orOther ? "o" : "-")\(source)"
            if let written, let options = optionsJSON[written] {
                object["options"] = options
            } else {
                let json = JSONValue.array(options.map { option in
                    let attributes = filtered ? option.attributes : [:]
                    if option.name == option.label && option.labels.isEmpty && attributes.isEmpty { return .string(option.label) }
                    var fields = [String: JSONValue](minimumCapacity: attributes.count + 2)
                    for (attribute, value) in attributes { fields[attribute] = .string(value) }
                    fields["name"] = .string(option.name)
                    fields["label"] = self.json(option.label, option.labels)
                    return .object(fields)
                })
                object["options"] = json
                if let written { optionsJSON[written] = json }
            }
        } else if let known = XLSFormVocabulary.types[head] {
            object["type"] = .string(known.type)
            object.merge(known.settings) { own, _ in own }
        } else if keyword.count == 1, QuestionTypes.all.contains(where: { $0.typeKey.rawValue == words[0] }) {
            // An MI type XLSForm has no name for (`table`), as MI's export writes it.
            object["type"] = .string(words[0])
        } else {
            let known = (XLSFormVocabulary.types.keys.sorted() + ["select_one LIST", "select_multiple LIST", "select_one_from_file FILE.csv"])
            problems.append(survey.problem(record, typeColumn, "unknown type \"\(rawType)\"; MI takes \(known.joined(separator: ", "))"))
            return
        }

        readParameters(record, survey: survey, columns.parameters, into: &object)
        readLogic(record, survey: survey, columns, into: &object)
        if let appearance = survey.text(record, columns.appearance) {
            if appearance.lowercased().contains("search(") {
                problems.append(survey.problem(record, columns.appearance, XLSFormVocabulary.refusedFunctions["search"] ?? ""))
            } else if appearance.lowercased() == "signature" || appearance.lowercased() == "draw" || appearance.lowercased() == "annotate" {
                problems.append(survey.problem(record, columns.appearance,
                    "MI cannot let the technician draw (\(appearance)); delete the appearance to take a photo"))
            } else {
                appearances[appearance, default: []].append(record.row)
            }
        }
        readMISettings(record, survey: survey, columns.miSettings, into: &object)
        stack[stack.count - 1].items.append(.object(object))
        if var followUp = otherFollowUp {
            let otherName = followUp["id"]?.stringValue ?? ""
            claim(otherName, record: record, survey: survey, column: typeColumn)
            followUp["id"] = .string(otherName)
            stack[stack.count - 1].items.append(.object(followUp))
        }
    }

    /// Whether `needle`'s bytes stand somewhere in `haystack`'s.
    private static func contains(_ haystack: String.UTF8View, _ needle: String.UTF8View) -> Bool {
        guard let first = needle.first else { return true }
        var start = haystack.startIndex
        while let found = haystack[start...].firstIndex(of: first) {
            if haystack[found...].starts(with: needle) { return true }
            start = haystack.index(after: found)
        }
        return false
    }

    private static let groupKeywords: [String: (Bool, String)] = [
        "begin_group": (true, "group"), "end_group": (false, "group"),
        "begin_repeat": (true, "repeat"), "end_repeat": (false, "repeat"),
    ]

    /// `begin group`, `begin_group`, `end repeat`, … → (begin?, "group" or "repeat").
    static func groupKeyword(_ keyword: [String]) -> (Bool, String)? {
        guard let first = keyword.first, first.hasPrefix("begin") || first.hasPrefix("end") else { return nil }
        return groupKeywords[keyword.joined(separator: "_")]
    }

    /// `select_one`, `select one`, `select_multiple`, `select all that apply`, `select one from`,
    /// `select_one_from_file`, `select one from file`: how many words the keyword takes.
    static func select(_ keyword: [String]) -> (multiple: Bool, fromFile: Bool, consumed: Int)? {
        guard keyword.first?.hasPrefix("select") == true else { return nil }
        var best: (Bool, Bool, Int)?
        for (words, multiple, fromFile) in selectSpellings where keyword.count > words.count && keyword.starts(with: words) {
            if best == nil || words.count > (best?.2 ?? 0) { best = (multiple, fromFile, words.count) }
        }
        return best.map { (multiple: $0.0, fromFile: $0.1, consumed: $0.2) }
    }

    private static let selectSpellings: [([String], Bool, Bool)] = [
        (["select_one_from_file"], false, true), (["select_multiple_from_file"], true, true),
        (["select", "one", "from", "file"], false, true), (["select", "multiple", "from", "file"], true, true),
        (["select_one"], false, false), (["select_multiple"], true, false),
        (["select", "one", "from"], false, false), (["select", "multiple", "from"], true, false),
        (["select", "one"], false, false), (["select", "multiple"], true, false),
        (["select", "all", "that", "apply"], true, false), (["select", "all", "that", "apply", "from"], true, false),
    ]

    /// Records `name` as used; a second use is refused (MI's names are unique in the whole form).
    private mutating func claim(_ name: String, record: XLSFormTable.Record, survey: XLSFormTable, column: XLSFormTable.Column?) {
        if let earlier = rowOfID[name] {
            problems.append(survey.problem(record, column,
                "the name \(name) is already row \(earlier)'s; MI needs every question and group name to be unique in the whole form — rename one"))
        } else {
            rowOfID[name] = record.row
        }
    }

    /// An expression cell with typographic quotes straightened; functions MI cannot evaluate refused.
    private mutating func expression(_ record: XLSFormTable.Record, _ column: XLSFormTable.Column?, _ survey: XLSFormTable) -> String? {
        guard let text = survey.text(record, column) else { return nil }
        let straight = text.straightQuotes
        for (function, reason) in Self.refusedFunctionsByName {
            if Self.calls(function, in: straight) {
                problems.append(survey.problem(record, column, reason))
                return nil
            }
        }
        return straight
    }

    /// The refused functions in the order their messages are given.
    private static let refusedFunctionsByName = XLSFormVocabulary.refusedFunctions.sorted(by: { $0.key < $1.key })

    /// Whether `text` calls `function(` outside quoted strings.
    static func calls(_ function: String, in text: String) -> Bool {
        // A call needs the name's bytes somewhere in the text; most expressions have none.
        guard contains(text.utf8, function.utf8) else { return false }
        var inQuote: Character?
        let characters = Array(text)
        let target = Array(function)
        var index = 0
        while index < characters.count {
            let c = characters[index]
            if let quote = inQuote {
                if c == quote { inQuote = nil }
            } else if c == "'" || c == "\"" {
                inQuote = c
            } else if Array(characters[index..<min(index + target.count, characters.count)]) == target,
                      index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber || characters[index - 1] == "_" || characters[index - 1] == "-" || characters[index - 1] == ":") {
                var next = index + target.count
                while next < characters.count, characters[next].isWhitespace { next += 1 }
                if next < characters.count, characters[next] == "(" { return true }
            }
            index += 1
        }
        return false
    }

    private mutating func readLogic(_ record: XLSFormTable.Record, survey: XLSFormTable, _ columns: SurveyColumns, into object: inout [String: JSONValue]) {
        if let text = expression(record, columns.relevant, survey) { object["relevant"] = .string(text) }
        if let text = expression(record, columns.constraint, survey) { object["constraint"] = .string(text) }
        if let text = localizedJSON(record, survey, columns.constraintMessage) { object["constraintMessage"] = text }
        if let text = survey.text(record, columns.required) {
            switch Self.flag(text) {
            case true?: object["required"] = .bool(true)
            case false?: object["required"] = .bool(false)
            case nil: if let expression = expression(record, columns.required, survey) { object["required"] = .string(expression) }
            }
        }
        if let text = localizedJSON(record, survey, columns.requiredMessage) { object["requiredMessage"] = text }
        if let text = expression(record, columns.calculation, survey) { object["calculation"] = .string(text) }
        if let text = survey.text(record, columns.defaultValue) {
            if XLSFormImporter.calls("pulldata", in: text) {
                problems.append(survey.problem(record, columns.defaultValue, XLSFormVocabulary.refusedFunctions["pulldata"] ?? ""))
            } else {
                object["default"] = .string(text)
            }
        }
        if let text = survey.text(record, columns.readOnly) {
            switch Self.flag(text) {
            case true?: object["readOnly"] = .bool(true)
            case false?: break
            case nil: problems.append(survey.problem(record, columns.readOnly, "read_only is yes or no, found \"\(text)\""))
            }
        }
        if let text = expression(record, columns.choiceFilter, survey) { object["choiceFilter"] = .string(text) }
        if survey.text(record, columns.repeatCount) != nil {
            problems.append(survey.problem(record, columns.repeatCount, "only a begin repeat row has a count; empty the cell"))
        }
    }

    /// `yes`, `true`, `true()`, `1` → true; `no`, `false`, `false()`, `0` → false; else nil (an expression).
    static func flag(_ text: String) -> Bool? {
        var lowered = text.lowercased()
        if lowered.utf8.contains(UInt8(ascii: " ")) { lowered = lowered.replacingOccurrences(of: " ", with: "") }
        if ["yes", "true", "true()", "1", "y"].contains(lowered) { return true }
        if ["no", "false", "false()", "0", "n"].contains(lowered) { return false }
        return nil
    }

    /// `start=1 end=10 step=1` (a range), `capture-accuracy=5` (a geopoint); others are warned about.
    private mutating func readParameters(_ record: XLSFormTable.Record, survey: XLSFormTable, _ column: XLSFormTable.Column?,
                                         into object: inout [String: JSONValue]) {
        guard let text = survey.text(record, column) else { return }
        let pairs = text.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" })
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmed }
            guard parts.count == 2 else {
                problems.append(survey.problem(record, column, "\"\(pair)\" is not a parameter; write name=value pairs separated by spaces"))
                continue
            }
            let key = parts[0].lowercased()
            guard let miKey = XLSFormVocabulary.parameterKeys[key] else {
                warnings.append(survey.problem(record, column, "parameter \(parts[0]) is not one MI uses; it is ignored"))
                continue
            }
            guard let number = Double(parts[1]) else {
                problems.append(survey.problem(record, column, "parameter \(parts[0]) is \"\(parts[1])\", not a number"))
                continue
            }
            object[miKey] = .number(number)
        }
    }

    /// The `mi_settings` cell: MI settings XLSForm has no column for (a JSON object MI's export wrote).
    private mutating func readMISettings(_ record: XLSFormTable.Record, survey: XLSFormTable, _ column: XLSFormTable.Column?,
                                         into object: inout [String: JSONValue]) {
        guard let text = survey.text(record, column) else { return }
        guard let parsed = try? JSONValue.parse(Data(text.utf8)), case .object(let fields) = parsed else {
            problems.append(survey.problem(record, column, "expected a JSON object of MI question settings ({\"min\": 0}), as MI's export writes it"))
            return
        }
        // MI's own settings are the finer ones (`maxAnswers` 2 where the type says select_multiple).
        object.merge(fields) { _, setting in setting }
    }

    // MARK: - Settings

    private mutating func readSettings(_ table: XLSFormTable, _ record: XLSFormTable.Record, into template: inout [String: JSONValue]) {
        if let id = table.text(record, table.column("form_id")) { template["id"] = .string(id) }
        if let title = table.text(record, table.column("form_title")) { template["title"] = .string(title) }
        let versionColumn = table.column("version")
        if let text = table.text(record, versionColumn) {
            if let number = Int(text), number >= 0 {
                template["version"] = .number(Double(number))
            } else if let stamp = Self.dateVersion(text) {
                template["version"] = .number(Double(stamp))
            } else {
                problems.append(table.problem(record, versionColumn,
                    "the version \"\(text)\" is not a whole number; MI numbers versions 1, 2, 3… (a date cell, such as =NOW(), becomes yyyymmddHHMM)"))
            }
        }
        let column = table.column(XLSFormVocabulary.miSettings)
        if let text = table.text(record, column) {
            if let parsed = try? JSONValue.parse(Data(text.utf8)), case .object(let fields) = parsed {
                template.merge(fields) { own, _ in own }
                // A title in several languages (form_title holds the default's).
                if case .object? = fields["title"] { template["title"] = fields["title"] }
            } else {
                problems.append(table.problem(record, column, "expected a JSON object of MI template settings, as MI's export writes it"))
            }
        }
    }

    /// `2024-03-05T14:30:00` (a date cell as read) → 202403051430.
    static func dateVersion(_ text: String) -> Int? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).map(String.init)
        guard text.count >= 16, text.dropFirst(4).first == "-", digits.count >= 5,
              digits[0].count == 4, digits[1...4].allSatisfy({ $0.count == 2 }) else { return nil }
        return Int(digits[0...4].joined())
    }

    // MARK: - Languages

    private var isMultilingual: Bool { columnLanguages.count > 1 }

    /// The template's name for a column language.
    private func languageName(_ columnLanguage: String?) -> String { columnLanguage ?? plainLanguageName }

    /// A translatable column's text in the default language and, when the form has several
    /// languages and they differ, in every language (keyed by the template's names). A language
    /// without a text reads the default's; a default without one takes `fallback`, else the first
    /// language's text.
    private func localized(_ record: XLSFormTable.Record, _ table: XLSFormTable, _ columns: TextColumns,
                           fallback: String? = nil) -> (text: String?, translations: [String: String]) {
        guard isMultilingual else { return (table.text(record, columns.preferred), [:]) }
        var found: [(name: String, isDefault: Bool, text: String)] = []
        found.reserveCapacity(columns.languages.count)
        for language in columns.languages {
            if let text = record[language.index] { found.append((language.name, language.isDefault, text)) }
        }
        guard let first = found.first else { return (table.text(record, columns.plain), [:]) }
        // Usually every language's text is there and they differ, or the form says it once.
        let same = found.allSatisfy { $0.text == first.text }
        if same, fallback == nil || fallback == first.text || found.contains(where: \.isDefault) { return (first.text, [:]) }
        var texts = [String: String](minimumCapacity: found.count + 1)
        for language in found { texts[language.name] = language.text }
        let defaultName = languageName(language)
        let text = texts[defaultName] ?? fallback ?? texts[first.name]
        if let text { texts[defaultName] = text }
        if let value = texts.values.first, texts.values.allSatisfy({ $0 == value }) { return (text, [:]) }
        return (text, texts)
    }

    /// A translatable column (label, hint, …) of one table, found once: where it stands in each
    /// of the form's languages (in the order `columnLanguages` has them) with the template's name
    /// for the language; the column without a language; and the default language's, which a form
    /// of one language reads alone.
    struct TextColumns {
        var languages: [(name: String, isDefault: Bool, index: Int)] = []
        var plain: XLSFormTable.Column?
        var preferred: XLSFormTable.Column?
    }

    private func textColumns(_ table: XLSFormTable, _ name: String) -> TextColumns {
        let candidates = table.columns(named: name)
        var result = TextColumns(plain: table.column(name), preferred: table.column(name, language: language))
        let defaultName = languageName(language)
        for columnLanguage in columnLanguages {
            guard let column = candidates.first(where: { $0.language == columnLanguage }) else { continue }
            let name = languageName(columnLanguage)
            result.languages.append((name, name == defaultName, column.index))
        }
        return result
    }

    private func localizedJSON(_ record: XLSFormTable.Record, _ table: XLSFormTable, _ columns: TextColumns, fallback: String? = nil) -> JSONValue? {
        let found = localized(record, table, columns, fallback: fallback)
        return found.text.map { json($0, found.translations) }
    }

    private func json(_ text: String, _ translations: [String: String]) -> JSONValue {
        translations.isEmpty ? .string(text) : .object(translations.mapValues(JSONValue.string))
    }

    // MARK: - Messages from MI's own template checks

    /// Points a problem MI's template reader found at the cell it came from.
    private func locate(_ problem: TemplateError.Problem, survey: XLSFormTable, settings: XLSFormTable?,
                        setting: XLSFormTable.Record?) -> XLSFormProblem {
        let field = problem.field ?? ""
        if let question = problem.question {
            let record = rowOfID[question].flatMap { row in survey.records.first { $0.row == row } }
            let columnName = XLSFormVocabulary.columnOfKey[field] ?? (field.isEmpty ? "name" : XLSFormVocabulary.miSettings)
            let translatable = XLSFormVocabulary.translatable.contains(columnName)
            let column = survey.column(columnName, language: translatable ? language : nil)
            var located = column.map { survey.problem(record, $0, problem.message) }
                ?? XLSFormProblem(sheet: survey.sheet, row: record?.row, column: columnName, message: problem.message)
            located.message = "\(question): \(problem.message)"
            return located
        }
        let settingsColumn = ["id": "form_id", "title": "form_title", "version": "version"][field]
            ?? (field == "questions" ? nil : XLSFormVocabulary.miSettings)
        guard let settingsColumn else { return XLSFormProblem(sheet: survey.sheet, message: problem.message) }
        guard let settings else {
            let sheet = field == "id" ? "settings (form_id; without it the file's name)" : "settings"
            return XLSFormProblem(sheet: sheet, column: settingsColumn, message: problem.message)
        }
        return settings.problem(setting, named: settingsColumn, problem.message)
    }
}
