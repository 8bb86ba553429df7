import Foundation

/// What changed between two stored versions of one form: answers and their comments, media
/// added or removed (compared by the SHA-256 each version's receipt gives its files, so a photo
/// taken again under the same name counts as removed and added), the office's flags and the
/// technician's replies, and the foremen's general comments. One rule for the API's diff and
/// the office's page.
public enum FormDiff {
    /// The changes from `from` (the earlier version's form and receipt) to `to`, question by
    /// question in the later form's order (questions only the earlier one has after them), then
    /// the general comments.
    public static func changes(from old: (form: Form, receipt: Receipt), to new: (form: Form, receipt: Receipt)) -> [FormChange] {
        var changes: [FormChange] = []
        for path in paths(old.form, new.form) {
            let before = old.form.answers[path], after = new.form.answers[path]
            if before?.value != after?.value {
                changes.append(FormChange(kind: .answer, question: path, before: before?.value?.display, after: after?.value?.display))
            }
            if before?.comment != after?.comment {
                changes.append(FormChange(kind: .comment, question: path, before: before?.comment, after: after?.comment))
            }
            let earlier = media(before, old.receipt), later = media(after, new.receipt)
            let earlierDigests = Set(earlier.map(\.sha256)), laterDigests = Set(later.map(\.sha256))
            for file in earlier where !laterDigests.contains(file.sha256) {
                changes.append(FormChange(kind: .mediaRemoved, question: path, media: file.name, sha256: file.sha256))
            }
            for file in later where !earlierDigests.contains(file.sha256) {
                changes.append(FormChange(kind: .mediaAdded, question: path, media: file.name, sha256: file.sha256))
            }
            let flagBefore = old.form.flag(at: path), flagAfter = new.form.flag(at: path)
            if let flagAfter, flagBefore?.note != flagAfter.note || flagBefore?.at != flagAfter.at {
                changes.append(FormChange(kind: .flag, question: path, before: flagBefore?.note, after: flagAfter.note))
            }
            if flagBefore?.givenReply != flagAfter?.givenReply {
                changes.append(FormChange(kind: .reply, question: path, before: flagBefore?.givenReply, after: flagAfter?.givenReply))
            }
        }
        let earlierComments = Set(old.form.foremanComments.map(\.text))
        for comment in new.form.foremanComments where !earlierComments.contains(comment.text) {
            changes.append(FormChange(kind: .foremanComment, question: nil, after: "\(comment.by): \(comment.text)"))
        }
        let laterComments = Set(new.form.foremanComments.map(\.text))
        for comment in old.form.foremanComments where !laterComments.contains(comment.text) {
            changes.append(FormChange(kind: .foremanComment, question: nil, before: "\(comment.by): \(comment.text)"))
        }
        return changes
    }

    /// Every answer path either form has, or flags: the later form's slots in order, then the
    /// earlier form's, then any other answered or flagged path, sorted.
    private static func paths(_ old: Form, _ new: Form) -> [String] {
        var seen = Set<String>()
        var ordered: [String] = []
        func add(_ path: String) { if seen.insert(path).inserted { ordered.append(path) } }
        new.slots.forEach { add($0.key) }
        old.slots.forEach { add($0.key) }
        let rest = Set(new.answers.keys).union(old.answers.keys).union(new.flags.map(\.question)).union(old.flags.map(\.question))
        rest.sorted().forEach(add)
        return ordered
    }

    /// An answer's media files with the SHA-256 its version's receipt stored them under.
    private static func media(_ answer: Answer?, _ receipt: Receipt) -> [(name: String, sha256: String)] {
        (answer?.media ?? []).map { name in (name, receipt.part(named: name)?.sha256 ?? "") }
    }
}
