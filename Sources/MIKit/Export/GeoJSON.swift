import Foundation

/// The GeoJSON export (RFC 7946): a FeatureCollection with one Feature per form, a Point at
/// where the form was started (`startLocation`) or else at its first `geopoint` answer in the
/// template's order. Coordinates are `[longitude, latitude]`, with the altitude third when it is
/// known, as RFC 7946 orders them. The properties are the form's `KEY` (id), `SubmissionDate`,
/// `User`, `FormVersion`, `location` (`start` or the question id the point came from), `accuracy`
/// (metres, when known), then every question of the layout by id with its stored value (as in
/// form.json; null when unanswered) and `<id>-comment` when it has a comment. A form with no
/// location is left out; `ExportProgress.formsWithoutLocation` counts them. Written by
/// `ExportWriter`, for `mi export --format geojson` and the server's `format=geojson` alike.
///
/// A template with repeats: the form's Feature is placed and described by the questions outside
/// every repeat, and each repeat instance with a location answer (its first location question's,
/// in the template's order) is a Feature of its own, `id` its `KEY` (`<form id>/trees[2]`), with
/// the properties `KEY`, `PARENT_KEY` (as in the repeat's CSV), `path` (`trees[2]`), `repeat`
/// (`trees`), `form` (the form id), `SubmissionDate`, `User`, `FormVersion`, `location` (the
/// answer's path, `trees[2]/gps`), `accuracy`, then the instance's questions by id.
public enum GeoJSON {
    /// What opens the collection.
    public static let head = Array(#"{"type":"FeatureCollection","features":["#.utf8)
    /// What closes it.
    public static let tail = Array("\n]}\n".utf8)

    /// Where a form is placed: its start location, else its first location answer (in the
    /// form's own template order); with where the point came from.
    public static func place(of form: Form) -> (point: Geopoint, source: String)? {
        if let start = form.startLocation { return (start, "start") }
        for question in form.template.questions {
            if case .location(let point)? = form.answers[question.id]?.value { return (point, question.id) }
        }
        for id in form.answers.keys.sorted() where !isInstancePath(id) {
            if case .location(let point)? = form.answers[id]?.value { return (point, id) }
        }
        return nil
    }

    /// Whether an answer key stands in a repeat instance (`trees[2]/gps`).
    static func isInstancePath(_ key: String) -> Bool { !(AnswerPath(parsing: key)?.instance.isEmpty ?? true) }

    /// The Features of `form` laid out by `layout` (the export's): the form's own, when it has a
    /// location, then one per instance of `instances` with a location answer.
    public static func features(for form: Form, layout: CSVLayout, instances: [FormInstances.Instance]) -> [[UInt8]] {
        var features: [[UInt8]] = []
        if let own = feature(for: form, template: layout.template, questions: layout.questions) { features.append(own) }
        guard !instances.isEmpty else { return features }
        let tables = Dictionary(layout.repeats.map { ($0.group.id, $0) }, uniquingKeysWith: { first, _ in first })
        let id = form.id.description
        for instance in instances {
            guard let table = tables[instance.group.id] else { continue }
            let answered = table.questions.filter(\.type.takesAnswer).map { ($0.id, AnswerPath($0.id, in: instance.steps).description) }
            guard let (point, source) = answered.lazy.compactMap({ pair -> (Geopoint, String)? in
                if case .location(let point)? = form.answers[pair.1]?.value { return (point, pair.1) }
                return nil
            }).first else { continue }
            var properties = common(form, point: point, source: source)
            properties["KEY"] = .string(instance.key(form: id))
            properties["PARENT_KEY"] = .string(instance.parentKey(form: id))
            properties["path"] = .string(instance.path)
            properties["repeat"] = .string(instance.group.id)
            properties["form"] = .string(id)
            for (question, key) in answered {
                let answer = form.answers[key]
                properties[question] = answer?.value.map(\.json) ?? .null
                if let comment = answer?.comment { properties["\(question)-comment"] = .string(comment) }
            }
            if let bytes = encode(id: instance.key(form: id), point: point, properties: properties) { features.append(bytes) }
        }
        return features
    }

    /// The properties every Feature has: the form's `KEY`, `SubmissionDate`, `User`,
    /// `FormVersion`, where the point came from and its accuracy.
    private static func common(_ form: Form, point: Geopoint, source: String) -> [String: JSONValue] {
        var properties: [String: JSONValue] = [
            "KEY": .string(form.id.description),
            "SubmissionDate": form.submittedAt.map { .string(CSVLayout.timestamp($0)) } ?? .null,
            "User": .string(form.user),
            "FormVersion": .number(Double(form.template.version)),
            "location": .string(source),
        ]
        if let accuracy = point.accuracy { properties["accuracy"] = .number(accuracy) }
        return properties
    }

    private static func encode(id: String, point: Geopoint, properties: [String: JSONValue]) -> [UInt8]? {
        var coordinates: [JSONValue] = [.number(point.longitude), .number(point.latitude)]
        if let altitude = point.altitude { coordinates.append(.number(altitude)) }
        let feature: JSONValue = .object([
            "type": .string("Feature"),
            "id": .string(id),
            "geometry": .object(["type": .string("Point"), "coordinates": .array(coordinates)]),
            "properties": .object(properties),
        ])
        guard let data = try? FormFile.encoder().encode(feature) else { return nil }
        return Array(data)
    }

    /// The Feature of `form` laid out by `template` (the export's version), or nil when the form
    /// has no location.
    public static func feature(for form: Form, template: Template) -> [UInt8]? {
        feature(for: form, template: template, questions: CSVLayout(template: template).questions)
    }

    static func feature(for form: Form, template: Template, questions: [Question]) -> [UInt8]? {
        guard let (point, source) = place(of: form) else { return nil }
        var properties = common(form, point: point, source: source)
        // A question that takes no answer (a note) is no property, as it is no CSV column; an
        // answer in a repeat instance belongs to the instance's Feature.
        var ids = questions.filter(\.type.takesAnswer).map(\.id)
        ids += form.answers.keys.filter { !ids.contains($0) && !isInstancePath($0) }.sorted()
        for id in ids {
            let answer = form.answers[id]
            properties[id] = answer?.value.map(\.json) ?? .null
            if let comment = answer?.comment { properties["\(id)-comment"] = .string(comment) }
        }
        return encode(id: form.id.description, point: point, properties: properties)
    }
}
