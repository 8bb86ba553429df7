import Foundation

/// `_rels/.rels` and `xl/_rels/workbook.xml.rels`: relationship id → target type and part path.
final class RelationshipsHandler: XMLHandler {
    struct Relationship {
        let type: String
        let target: String
        let isExternal: Bool
    }

    private(set) var relationships: [String: Relationship] = [:]
    var wantsText: Bool { false }

    func start(_ element: String, attributes: XMLAttributes) throws {
        guard element == "Relationship", let id = attributes["Id"], let target = attributes["Target"] else { return }
        relationships[id] = Relationship(type: attributes["Type"] ?? "", target: target,
                                         isExternal: attributes["TargetMode"] == "External")
    }

    func end(_ element: String) throws {}
    func text(_ text: String) {}

    /// The first relationship whose type ends with `/suffix` (types are long URIs that differ
    /// between transitional and strict Office Open XML).
    func target(ofTypeEndingWith suffix: String) -> String? {
        relationships.values.filter { $0.type.hasSuffix("/" + suffix) && !$0.isExternal }.map(\.target).min()
    }

    /// Resolves a relationship target to a path in the zip: `/xl/worksheets/sheet1.xml` is absolute
    /// (from the package root), `worksheets/sheet1.xml` or `../xl/…` are relative to the folder of
    /// the part the relationships belong to.
    static func resolve(_ target: String, relativeTo partPath: String) -> String {
        let decoded = target.removingPercentEncoding ?? target
        var segments: [Substring]
        if decoded.hasPrefix("/") {
            segments = []
        } else {
            segments = partPath.split(separator: "/")
            if !segments.isEmpty { segments.removeLast() }
        }
        for segment in decoded.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            default: segments.append(segment)
            }
        }
        return segments.joined(separator: "/")
    }
}

/// `xl/workbook.xml`: the sheets in tab order, and the date system.
final class WorkbookHandler: XMLHandler {
    struct SheetEntry {
        let name: String
        let relationshipID: String
        let isHidden: Bool
    }

    private(set) var sheets: [SheetEntry] = []
    private(set) var date1904 = false
    var wantsText: Bool { false }

    func start(_ element: String, attributes: XMLAttributes) throws {
        switch element {
        case "workbookPr":
            if let value = attributes["date1904"] { date1904 = value == "1" || value.lowercased() == "true" }
        case "sheet":
            guard let name = attributes["name"], !name.isEmpty else {
                throw XLSXError.badSheetEntry(sheet: "number \(sheets.count + 1)", detail: "it has no name")
            }
            // The relationship id is `r:id` in the relationships namespace, whatever its prefix.
            guard let id = attributes.prefixed("id") else {
                throw XLSXError.badSheetEntry(sheet: name, detail: "it has no r:id naming its part")
            }
            let state = attributes["state"] ?? "visible"
            sheets.append(SheetEntry(name: name, relationshipID: id, isHidden: state != "visible"))
        default:
            break
        }
    }

    func end(_ element: String) throws {}
    func text(_ text: String) {}
}

/// Text runs (`<t>`, directly in `<si>`/`<is>` or in rich text `<r>`), concatenated; phonetic
/// guides (`<rPh>`) left out, as spreadsheet programs show the cell.
struct RichTextCollector {
    private var depthInPhonetic = 0
    private var inText = false
    private(set) var text = ""

    var wantsText: Bool { inText && depthInPhonetic == 0 }

    mutating func start(_ element: String) {
        switch element {
        case "rPh": depthInPhonetic += 1
        case "t": inText = true
        default: break
        }
    }

    mutating func end(_ element: String) {
        switch element {
        case "rPh": depthInPhonetic -= 1
        case "t": inText = false
        default: break
        }
    }

    mutating func append(_ string: String) { text += string }

    /// The text with Excel's `_xHHHH_` escapes (characters XML cannot carry, and `_x005F_` for a
    /// literal underscore) decoded; resets for the next string.
    mutating func take() -> String {
        defer { text = ""; inText = false; depthInPhonetic = 0 }
        return Self.unescape(text)
    }

    static func unescape(_ text: String) -> String {
        var bytes = text
        guard bytes.withUTF8({ $0.contains(UInt8(ascii: "_")) }) else { return text }
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let first = scalars.first {
            if first == "_", scalars.count >= 7 {
                let candidate = scalars.prefix(7)
                let chars = Array(candidate)
                if chars[1] == "x", chars[6] == "_",
                   let code = UInt32(String(String.UnicodeScalarView(chars[2...5])), radix: 16),
                   let scalar = Unicode.Scalar(code) {
                    result.unicodeScalars.append(scalar)
                    scalars = scalars.dropFirst(7)
                    continue
                }
            }
            result.unicodeScalars.append(first)
            scalars = scalars.dropFirst()
        }
        return result
    }
}

/// `xl/sharedStrings.xml`: the table `t="s"` cells index into.
final class SharedStringsHandler: XMLHandler {
    private(set) var strings: [String] = []
    private var inItem = false
    private var collector = RichTextCollector()

    var wantsText: Bool { inItem && collector.wantsText }

    func start(_ element: String, attributes: XMLAttributes) throws {
        if element == "si" {
            inItem = true
        } else if inItem {
            collector.start(element)
        }
    }

    func end(_ element: String) throws {
        if element == "si" {
            strings.append(collector.take())
            inItem = false
        } else if inItem {
            collector.end(element)
        }
    }

    func text(_ text: String) { collector.append(text) }
}

/// `xl/styles.xml`: which cell formats (`s="3"`, an index into `<cellXfs>`) show numbers as dates.
final class StylesHandler: XMLHandler {
    private var customFormats: [Int: String] = [:]
    private var cellFormatIDs: [Int] = []
    private var inCellXfs = false
    private var xfDepth = 0
    var wantsText: Bool { false }

    func start(_ element: String, attributes: XMLAttributes) throws {
        switch element {
        case "numFmt":
            if let id = attributes["numFmtId"].flatMap({ Int($0) }), let code = attributes["formatCode"] {
                customFormats[id] = code
            }
        case "cellXfs":
            inCellXfs = true
        case "xf" where inCellXfs:
            cellFormatIDs.append(attributes["numFmtId"].flatMap { Int($0) } ?? 0)
        default:
            break
        }
    }

    func end(_ element: String) throws {
        if element == "cellXfs" { inCellXfs = false }
    }

    func text(_ text: String) {}

    /// For each cell format index, whether it shows a date or time.
    var dateStyles: [Bool] {
        cellFormatIDs.map { id in
            if let code = customFormats[id] { return NumberFormat.isDateFormat(code) }
            return NumberFormat.builtInDateIDs.contains(id)
        }
    }
}
