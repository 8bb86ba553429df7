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
    var questions: [QuestionJSON]
    var foremanComments: [ForemanComment]
    var audit: [AuditJSON]?
    /// The template scorer's values (`"ipaq.totalMET": 1386`), recomputed from the answers; absent
    /// when the template names no scorer.
    var scores: [String: ScoreValue]?
    /// Each item the scorer judged or left to an examiner (MMSE); empty for IPAQ.
    var scoreItems: [ScoreItem]?
    /// What a reader must know about the scores ("Not a full 30-point MMSE …").
    var scoreNote: String?

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

    struct QuestionJSON: Encodable {
        var number: Int
        var id: String
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
    }

    init(_ form: Form, media: [MediaFile]? = nil, history: Bool = false) {
        summary = FormSummaryJSON(form.summary)
        returnNote = form.returnNote
        consent = form.consent
        consentAccepted = form.hasRequiredConsent
        startLocation = form.startLocation?.json
        questions = form.template.questions.enumerated().map { index, question in
            let answer = form.answer(for: question.id)
            let files = media?.filter { $0.questionID == question.id }
                ?? answer.media.map { MediaFile(name: $0, questionID: question.id, kind: MediaKind(extension: ($0 as NSString).pathExtension) ?? .photo, bytes: nil) }
            var settings: [String: JSONValue] = [:]
            question.type.encode(into: &settings, keys: .logical)
            question.logic.encode(into: &settings, keys: .logical)
            return QuestionJSON(number: index + 1, id: question.id, type: question.typeName, typeDescription: question.typeDescription,
                                text: question.text, help: question.help, settings: settings,
                                value: answer.value, draft: answer.draft, comment: answer.comment, media: files,
                                done: form.isDone(question),
                                relevant: question.logic.relevant == nil ? nil : FormLogic(template: form.template).isRelevant(question, in: form))
        }
        foremanComments = form.foremanComments
        audit = history ? form.audit.map(AuditJSON.init) : nil
        if let sheet = form.scores {
            scores = Dictionary(sheet.values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            scoreItems = sheet.items
            scoreNote = sheet.note
        }
    }
}
