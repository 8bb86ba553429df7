import Foundation

/// The `jsonl` export's answers of a form with repeats: form.json as stored, but with `answers`
/// nested as the form is asked — a question outside every repeat under its id as always, a
/// repeat under its id as an array of its instances in order (instance 1 first), each an object
/// of its questions' answers by id and its own repeats the same way:
///
/// ```json
/// "answers": {"site": {"value": "North"}, "pumps": [{"amps": {"value": 10}, "seals": [{"seal": {"value": "ok"}}]}, {}]}
/// ```
///
/// Each answer object is the one form.json stores. An instance without answers is `{}`, so an
/// instance's position in its array is its number. A form without repeats is written as stored.
public enum NestedAnswers {
    /// Whether a form's answers are nested: its template has repeats, or an answer stands in an instance.
    public static func applies(to form: Form) -> Bool {
        form.template.hasRepeats || form.answers.keys.contains { GeoJSON.isInstancePath($0) }
    }

    /// form.json `data` with its `answers` nested by the instances of `form` (`logic` is its own
    /// template's); `data` unchanged when it cannot be read as an object.
    static func json(_ data: Data, form: Form, logic: FormLogic, now: Date) -> Data {
        guard case .object(var object)? = try? JSONValue.parse(data), case .object(let answers)? = object["answers"] else { return data }
        object["answers"] = .object(nested(answers, form: form, logic: logic, now: now))
        return (try? FormFile.encoder().encode(JSONValue.object(object))) ?? data
    }

    /// `answers` (form.json's, by key) nested by path; every instance `FormInstances` lists is
    /// present, empty or not.
    public static func nested(_ answers: [String: JSONValue], form: Form, logic: FormLogic, now: Date) -> [String: JSONValue] {
        var root = Node()
        for instance in FormInstances(form, logic: logic, now: now).instances { root.add(instance.steps[...]) }
        for (key, value) in answers {
            guard let path = AnswerPath(parsing: key), !path.instance.isEmpty else {
                root.values[key] = value
                continue
            }
            root.add(path.instance[...], name: path.name, value: value)
        }
        return root.json
    }

    private struct Node {
        var values: [String: JSONValue] = [:]
        var repeats: [String: [Int: Node]] = [:]

        mutating func add(_ steps: ArraySlice<InstanceStep>, name: String? = nil, value: JSONValue = .null) {
            guard let step = steps.first else {
                if let name { values[name] = value }
                return
            }
            var child = repeats[step.repeatID, default: [:]][step.index] ?? Node()
            child.add(steps.dropFirst(), name: name, value: value)
            repeats[step.repeatID, default: [:]][step.index] = child
        }

        var json: [String: JSONValue] {
            var object = values
            for (id, instances) in repeats {
                let last = instances.keys.max() ?? 0
                object[id] = .array((0..<last).map { .object(instances[$0 + 1]?.json ?? [:]) })
            }
            return object
        }
    }
}
