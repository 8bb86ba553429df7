import Foundation

/// One step into a repeat: its id and the instance's number, from 1.
public struct InstanceStep: Hashable, Sendable, Codable {
    public var repeatID: String
    public var index: Int

    public init(_ repeatID: String, _ index: Int) {
        self.repeatID = repeatID
        self.index = index
    }
}

/// Where an answer stands: the repeat instances around it and the question's id —
/// `trees[2]/stems[1]/cbh`, instances numbered from 1. A question outside every repeat is its id
/// alone, so a flat form's answers are keyed as they always were. Groups do not appear: ids are
/// unique across a template. The text is the key of `Form.answers`, of `mi answer`, answers
/// files, `--json`, the audit trail and every message.
public struct AnswerPath: Hashable, Sendable, CustomStringConvertible {
    public var instance: [InstanceStep]
    public var name: String

    public init(_ name: String, in instance: [InstanceStep] = []) {
        self.instance = instance
        self.name = name
    }

    public var description: String { Self.prefix(instance) + name }

    /// `trees[2]/stems[1]/` for those steps; empty for none.
    public static func prefix(_ instance: [InstanceStep]) -> String {
        instance.map { "\($0.repeatID)[\($0.index)]/" }.joined()
    }

    /// The key of a repeat's instance count in `Form.repeats`: the repeat's path in its parent
    /// instance (`trees`, `trees[2]/stems`).
    public static func countKey(_ repeatID: String, in parent: [InstanceStep]) -> String {
        prefix(parent) + repeatID
    }

    /// Reads `trees[2]/stems[1]/cbh` (or a bare `cbh`); nil when it is not that shape. The last
    /// part names a question (or a repeat, for `--remove`) and has no number.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = parts.last, !last.isEmpty, !last.contains("["), !last.contains("]") else { return nil }
        var steps: [InstanceStep] = []
        for part in parts.dropLast() {
            guard part.hasSuffix("]"), let open = part.firstIndex(of: "["), open > part.startIndex else { return nil }
            let id = part[..<open]
            let number = part[part.index(after: open)..<part.index(before: part.endIndex)]
            guard !id.contains("]"), let index = Int(number), index >= 1, String(index) == number else { return nil }
            steps.append(InstanceStep(String(id), index))
        }
        self.init(String(last), in: steps)
    }
}
