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
        for id in form.answers.keys.sorted() {
            if case .location(let point)? = form.answers[id]?.value { return (point, id) }
        }
        return nil
    }

    /// The Feature of `form` laid out by `template` (the export's version), or nil when the form
    /// has no location.
    public static func feature(for form: Form, template: Template) -> [UInt8]? {
        guard let (point, source) = place(of: form) else { return nil }
        var coordinates: [JSONValue] = [.number(point.longitude), .number(point.latitude)]
        if let altitude = point.altitude { coordinates.append(.number(altitude)) }
        var properties: [String: JSONValue] = [
            "KEY": .string(form.id.uuidString.lowercased()),
            "SubmissionDate": form.submittedAt.map { .string(CSVLayout.timestamp($0)) } ?? .null,
            "User": .string(form.user),
            "FormVersion": .number(Double(form.template.version)),
            "location": .string(source),
        ]
        if let accuracy = point.accuracy { properties["accuracy"] = .number(accuracy) }
        // A question that takes no answer (a note) is no property, as it is no CSV column.
        var ids = template.questions.filter(\.type.takesAnswer).map(\.id)
        ids += form.answers.keys.filter { !ids.contains($0) }.sorted()
        for id in ids {
            let answer = form.answers[id]
            properties[id] = answer?.value.map(\.json) ?? .null
            if let comment = answer?.comment { properties["\(id)-comment"] = .string(comment) }
        }
        let feature: JSONValue = .object([
            "type": .string("Feature"),
            "id": .string(form.id.uuidString.lowercased()),
            "geometry": .object(["type": .string("Point"), "coordinates": .array(coordinates)]),
            "properties": .object(properties),
        ])
        guard let data = try? FormFile.encoder().encode(feature) else { return nil }
        return Array(data)
    }
}
