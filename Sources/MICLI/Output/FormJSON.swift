import Foundation
import MIKit

/// A form as `--json` prints it: the summary plus each question with its answer.
struct FormJSON: Encodable {
    /// The keys every listing has (`FormSummaryJSON`), at the top level of the same object.
    var summary: FormSummaryJSON
    var returnNote: String?
    /// Who accepted the template's consent text, when, and its SHA-256 (absent when nobody did).
    var consent: ConsentAcceptance?
    /// Whether the form may be answered and submitted as far as consent goes (true when the
    /// template has no consent text).
    var consentAccepted: Bool
    /// Where the form was started (`Geopoint.json`), when it was recorded.
    var startLocation: JSONValue?
    /// The questions in order; for a template with groups, nested as its template nests them: a
    /// group holds its `questions`, a repeat its `instances`, each instance its `questions`.
    var questions: [ItemJSON]
    var foremanComments: [ForemanComment]
    var audit: [AuditJSON]?
    /// The template scorer's values (`"ipaq.totalMET": 1386`), recomputed from the answers; absent
    /// when the template names no scorer.
    var scores: [String: ScoreValue]?
    /// Each item the scorer judged or left to an examiner (MMSE); empty for IPAQ.
    var scoreItems: [ScoreItem]?
    /// What a reader must know about the scores ("Not a full 30-point MMSE …").
    var scoreNote: String?
    /// The server's version the form came back as (`mi sync`); absent for a form never sent back.
    var supersedes: Int?
    /// The questions the office flagged, each answered or not (`Form.isAnswered`); absent when none.
    var flags: [FlagJSON]?

    /// One flag of the office: the answer's `path`, the note, who flagged it and when, the answer
    /// as it stood when the form came back (`returnedValue`, `returnedComment`, `returnedMedia`),
    /// the technician's reply, and whether it is answered.
    struct FlagJSON: Encodable {
        var path: String
        var note: String
        var by: String
        var at: Date
        var returnedValue: AnswerValue?
        var returnedComment: String?
        var returnedMedia: [String]
        var reply: String?
        var answered: Bool

        init(_ flag: FormFlag, in form: Form) {
            path = flag.question
            note = flag.note
            by = flag.by
            at = flag.at
            returnedValue = flag.value
            returnedComment = flag.comment
            returnedMedia = flag.media
            reply = flag.reply
            answered = form.isAnswered(flag)
        }
    }

    /// One event of the history (`--history`): form.json's event with its keys named so that
    /// none has another type elsewhere in `--json` (`questions` and `media` are arrays of
    /// objects in the same document), and the sentence `mi review --history` prints.
    struct AuditJSON: Encodable {
        var at: Date
        var by: String
        var action: String
        /// Ids of the questions the event touched.
        var questionIDs: [String]?
        /// The media file attached or detached.
        var mediaName: String?
        var from: String?
        var to: String?
        var note: String?
        var sentence: String

        init(_ event: AuditEvent) {
            at = event.at
            by = event.by
            action = event.action.rawValue
            questionIDs = event.questions
            mediaName = event.media
            from = event.from
            to = event.to
            note = event.note
            sentence = event.sentenceInLocalStore
        }
    }

    /// One entry of `questions`: a question, a group or a repeat.
    enum ItemJSON: Encodable {
        case question(QuestionJSON)
        case group(GroupJSON)
        case repeated(RepeatJSON)

        func encode(to encoder: Encoder) throws {
            switch self {
            case .question(let question): try question.encode(to: encoder)
            case .group(let group): try group.encode(to: encoder)
            case .repeated(let repeated): try repeated.encode(to: encoder)
            }
        }
    }

    /// A group: `{"type": "group", "id", "text", "relevantNow", "questions": [...]}`.
    struct GroupJSON: Encodable {
        var type = "group"
        var id: String
        var text: String?
        var relevantNow: Bool
        var questions: [ItemJSON]
    }

    /// A repeat in its parent instance: `path` is its count key (`pumps`, `pumps[2]/seals`), and
    /// `instances` one object per instance.
    struct RepeatJSON: Encodable {
        var type = "repeat"
        var id: String
        var text: String?
        var path: String
        /// The `repeatCount` expression or number; absent for an open repeat.
        var repeatCount: String?
        var instances: [InstanceJSON]
    }

    /// One instance of a repeat: its number from 1, its path (`pumps[2]`), its questions.
    struct InstanceJSON: Encodable {
        var number: Int
        var path: String
        var relevantNow: Bool
        var questions: [ItemJSON]
    }

    struct QuestionJSON: Encodable {
        var number: Int
        var id: String
        /// Where the answer stands (`pumps[2]/amps`): present for a template with groups.
        var path: String?
        /// The template's type name with the default keys (`QuestionType.typeKey`).
        var type: String
        /// The type and its rules in words, as the screen shows them.
        var typeDescription: String
        var text: String
        var help: String?
        /// The type's settings under their logical names (`options`, `maxAnswers`, `integer`,
        /// `min`, `max`, `rows`, `columns`, `noCells` as `[row, column]` pairs from 0…), as the
        /// type writes them (`QuestionType.encode(into:keys:)`).
        var settings: [String: JSONValue]
        var value: AnswerValue?
        /// The cells of a table typed so far, while it is incomplete (null in cells not yet typed).
        var draft: [[String?]]?
        var comment: String?
        var media: [MediaFile]
        var done: Bool
        /// Whether the question is relevant now (`relevantNow`): present only for a question with
        /// `relevant` (whose expression is in the settings as `relevant`).
        var relevant: Bool?

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ string: String) { stringValue = string }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(number, forKey: Key("number"))
            try container.encode(id, forKey: Key("id"))
            try container.encodeIfPresent(path, forKey: Key("path"))
            try container.encode(type, forKey: Key("type"))
            try container.encode(typeDescription, forKey: Key("typeDescription"))
            try container.encode(text, forKey: Key("text"))
            try container.encodeIfPresent(help, forKey: Key("help"))
            for (key, value) in settings { try container.encode(value, forKey: Key(key)) }
            try container.encodeIfPresent(value, forKey: Key("value"))
            try container.encodeIfPresent(draft, forKey: Key("draft"))
            try container.encodeIfPresent(comment, forKey: Key("comment"))
            try container.encode(media, forKey: Key("media"))
            try container.encode(done, forKey: Key("done"))
            try container.encodeIfPresent(relevant, forKey: Key("relevantNow"))
        }
    }

    private enum CodingKeys: String, CodingKey {
        case returnNote, consent, consentAccepted, startLocation, questions, foremanComments, audit, scores, scoreItems, scoreNote
        case supersedes, flags
    }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(returnNote, forKey: .returnNote)
        try container.encodeIfPresent(consent, forKey: .consent)
        try container.encode(consentAccepted, forKey: .consentAccepted)
        try container.encodeIfPresent(startLocation, forKey: .startLocation)
        try container.encode(questions, forKey: .questions)
        try container.encode(foremanComments, forKey: .foremanComments)
        try container.encodeIfPresent(audit, forKey: .audit)
        try container.encodeIfPresent(scores, forKey: .scores)
        try container.encodeIfPresent(scoreItems, forKey: .scoreItems)
        try container.encodeIfPresent(scoreNote, forKey: .scoreNote)
        try container.encodeIfPresent(supersedes, forKey: .supersedes)
        try container.encodeIfPresent(flags, forKey: .flags)
    }

    init(_ form: Form, media: [MediaFile]? = nil, history: Bool = false) {
        summary = FormSummaryJSON(form.summary)
        returnNote = form.returnNote
        consent = form.consent
        consentAccepted = form.hasRequiredConsent
        startLocation = form.startLocation?.json
        questions = Self.items(form, media: media)
        foremanComments = form.foremanComments
        audit = history ? form.audit.map(AuditJSON.init) : nil
        supersedes = form.supersedes
        flags = form.flags.isEmpty ? nil : form.flags.map { FlagJSON($0, in: form) }
        if let sheet = form.scores {
            scores = Dictionary(sheet.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            scoreItems = sheet.items
            scoreNote = sheet.note
        }
    }

    /// `questions`: flat for a template without groups (each question once, numbered as in the
    /// template), else nested as `FormLogic.layout` lays the form out, numbered in that order.
    static func items(_ form: Form, media: [MediaFile]?) -> [ItemJSON] {
        let grouped = !form.template.groups.isEmpty
        let logic = form.template.hasLogic ? FormLogic(template: form.template) : nil
        let now = Date()
        var number = 0
        func question(_ slot: AnswerSlot) -> QuestionJSON {
            number += 1
            let question = slot.question
            let answer = form.answer(for: slot.key)
            let files = media?.filter { $0.questionID == slot.key }
                ?? answer.media.map { MediaFile(name: $0, questionID: slot.key, kind: MediaKind(extension: ($0 as NSString).pathExtension) ?? .photo, bytes: nil) }
            var settings: [String: JSONValue] = [:]
            question.type.encode(into: &settings, keys: .logical)
            question.logic.encode(into: &settings, keys: .logical)
            let relevant = grouped || question.logic.relevant != nil ? logic?.isRelevant(slot, in: form, now: now) : nil
            return QuestionJSON(number: grouped ? number : slot.index + 1, id: question.id, path: grouped ? slot.key : nil,
                                type: question.typeName, typeDescription: question.typeDescription,
                                text: question.text, help: question.help, settings: settings,
                                value: answer.value, draft: answer.draft, comment: answer.comment, media: files,
                                done: logic.map { $0.isDone(slot, in: form, now: now) } ?? form.isDone(question),
                                relevant: relevant)
        }
        guard grouped, let logic else {
            return form.template.questions.enumerated().map { .question(question(AnswerSlot(question: $0.element, index: $0.offset))) }
        }
        func items(_ nodes: [FormNode]) -> [ItemJSON] {
            nodes.map { node -> ItemJSON in
                switch node {
                case .question(let slot): return .question(question(slot))
                case .group(let group, let instance, let children):
                    return .group(GroupJSON(id: group.id, text: group.text,
                                            relevantNow: logic.isRelevant(group: group, at: instance, in: form, now: now),
                                            questions: items(children)))
                case .repeat(let group, let parent, let instances):
                    return .repeated(RepeatJSON(id: group.id, text: group.text, path: AnswerPath.countKey(group.id, in: parent),
                                                repeatCount: group.repeatCount?.text,
                                                instances: instances.map { instance in
                        InstanceJSON(number: instance.number, path: AnswerPath.prefix(instance.instance).dropLastSlash,
                                     relevantNow: logic.isRelevant(group: group, at: instance.instance, in: form, now: now),
                                     questions: items(instance.children))
                    }))
                }
            }
        }
        return items(logic.layout(of: form, now: now))
    }
}

private extension String {
    /// `pumps[2]/` without its last slash.
    var dropLastSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
