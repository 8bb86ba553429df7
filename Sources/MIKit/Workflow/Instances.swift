import Foundation

/// The instances of a form's open repeats: removing one.
extension Workflow {
    /// Removes instance `number` of an open repeat (`repeatPath`: `trees`, or `trees[2]/stems`
    /// for a repeat inside one) with its answers, its nested instances and its media; the
    /// instances after it move up one (`trees[3]` becomes `trees[2]`). form.json is saved first,
    /// then the media files are deleted, so a crash between the two leaves files no answer names
    /// rather than answers whose files are gone. A repeat whose count comes from `repeatCount` is
    /// changed through that answer instead.
    public func removeInstance(_ reference: String, repeat repeatPath: String, number: Int) throws -> Form {
        let (location, original) = try openForChange(reference)
        let template = original.template
        let logic = FormLogic(template: template)
        guard let path = AnswerPath(parsing: repeatPath), let group = template.group(id: path.name), group.isRepeat else {
            let repeats = template.groups.filter(\.isRepeat).map(\.id)
            throw AnswerError(question: repeatPath, rule: repeats.isEmpty
                ? "template \(template.id) has no repeat, so there is no instance to remove"
                : "not a repeat of template \(template.id) (repeats: \(repeats.joined(separator: ", ")))")
        }
        let parentChain = logic.repeatChain(of: group.id).dropLast().map(\.id)
        guard parentChain == path.instance.map(\.repeatID) else {
            let example = AnswerPath.countKey(group.id, in: parentChain.map { InstanceStep($0, 1) })
            throw AnswerError(question: repeatPath, rule: "\(group.id) stands in \(parentChain.isEmpty ? "no repeat" : "the repeat \(parentChain.joined(separator: " › "))"): name it \(example)")
        }
        guard logic.instanceExists(path.instance, in: original, now: now()) else {
            throw AnswerError(question: repeatPath, rule: "the form has no instance \(AnswerPath.prefix(path.instance).dropLast())")
        }
        if let count = group.repeatCount {
            throw AnswerError(question: repeatPath, rule: "its number of instances is its count (\(count.text)): change that answer instead of removing one")
        }
        let countKey = AnswerPath.countKey(group.id, in: path.instance)
        let count = logic.instanceCount(group, in: path.instance, form: original, now: now())
        guard number >= 1, number <= count else {
            throw AnswerError(question: repeatPath, rule: count == 0 ? "\(countKey) has no instance" : "\(countKey) has \(count == 1 ? "1 instance" : "\(count) instances"): remove one from 1 to \(count)")
        }
        var form = original
        let removedPrefix = "\(countKey)[\(number)]/"
        var removedMedia: [String] = []
        var answers: [String: Answer] = [:]
        for (key, answer) in original.answers {
            if key.hasPrefix(removedPrefix) {
                removedMedia += answer.media
                continue
            }
            answers[Self.renumbered(key, countKey: countKey, after: number) ?? key] = answer
        }
        form.answers = answers
        var repeats: [String: Int] = [:]
        for (key, value) in original.repeats where !(key + "/").hasPrefix(removedPrefix) {
            repeats[Self.renumbered(key, countKey: countKey, after: number) ?? key] = value
        }
        repeats[countKey] = count - 1
        if count - 1 == 0 { repeats[countKey] = nil }
        form.repeats = repeats
        if template.hasLogic { try Self.checkLogic(of: [], in: &form, now: now(), structural: true) }
        form.record(AuditEvent(at: now(), by: actor.name, action: .removed, questions: ["\(countKey)[\(number)]"],
                               note: removedMedia.isEmpty ? nil : "media removed: \(removedMedia.joined(separator: ", "))"))
        try store.save(form, at: location)
        for name in removedMedia where SafeName.problem(name) == nil {
            try? FileManager.default.removeItem(at: location.folder.appendingPathComponent(name))
        }
        if !removedMedia.isEmpty { try? DurableFile.syncFolder(location.folder) }
        return form
    }

    /// Adds the next instance of an open repeat (`repeatPath`: `trees`, or `trees[2]/stems`),
    /// with its defaults, as answering its first question would (`mi fill`'s "Add another …?");
    /// returns the form and the new instance's number. Nothing is recorded in the audit trail
    /// until an answer in it is given.
    public func addInstance(_ reference: String, repeat repeatPath: String) throws -> (form: Form, number: Int) {
        let (location, original) = try openForChange(reference)
        let template = original.template
        let logic = FormLogic(template: template)
        guard let path = AnswerPath(parsing: repeatPath), let group = template.group(id: path.name), group.isRepeat,
              logic.repeatChain(of: group.id).dropLast().map(\.id) == path.instance.map(\.repeatID),
              logic.instanceExists(path.instance, in: original, now: now()) else {
            throw AnswerError(question: repeatPath, rule: "not a repeat of template \(template.id) in an instance this form has")
        }
        if let count = group.repeatCount {
            throw AnswerError(question: repeatPath, rule: "its number of instances is its count (\(count.text)): change that answer instead of adding one")
        }
        let countKey = AnswerPath.countKey(group.id, in: path.instance)
        let count = logic.instanceCount(group, in: path.instance, form: original, now: now())
        guard count < QuestionGroup.maxInstances else {
            throw AnswerError(question: repeatPath, rule: "\(countKey) has \(count) instances, the most a repeat has")
        }
        var form = original
        form.repeats[countKey] = count + 1
        form = logic.withDefaults(form, now: now(), under: path.instance + [InstanceStep(group.id, count + 1)])
        if template.hasLogic { try Self.checkLogic(of: [], in: &form, now: now(), structural: true) }
        try store.save(form, at: location)
        return (form, count + 1)
    }

    /// `key` with the instance of `countKey` after `number` moved up one, or nil when `key`
    /// is not in a later instance (`trees[3]/cbh` → `trees[2]/cbh` for `trees` after 2).
    static func renumbered(_ key: String, countKey: String, after number: Int) -> String? {
        let head = countKey + "["
        guard key.hasPrefix(head), let close = key[key.index(key.startIndex, offsetBy: head.count)...].firstIndex(of: "]"),
              let index = Int(key[key.index(key.startIndex, offsetBy: head.count)..<close]), index > number else { return nil }
        return head + String(index - 1) + key[close...]
    }
}
