import Foundation

/// A form in progress or completed: the template copy it was started from, the answers with
/// their comments and media, the foreman's comments and an audit trail.
public struct Form: Sendable, Equatable {
    /// The upload's idempotency key, fixed when the form is created.
    public var id: FormID
    /// The folder name, unique per user.
    public var name: String
    /// The technician the form belongs to.
    public var user: String
    /// The technician's display name from the directory ("Ana Pérez"), recorded when the form
    /// is started or reassigned; nil in forms written before it was recorded.
    public var userDisplayName: String?
    public var template: Template
    public var status: Status
    public var createdAt: Date
    public var updatedAt: Date
    public var submittedAt: Date?
    /// When a foreman last sent the form back; its expiry restarts from then.
    public var returnedAt: Date?
    /// The foreman's note with the last send-back, shown to the technician.
    public var returnNote: String?
    /// By question id.
    public var answers: [String: Answer]
    public var foremanComments: [ForemanComment]
    public var audit: [AuditEvent]
    /// The respondent's acceptance of the template's consent text, when it has one.
    public var consent: ConsentAcceptance?
    /// The time zone the form was started in (an identifier such as `America/Mexico_City`):
    /// the calendar scorers judge dates in. Nil in forms written before it was recorded (UTC).
    public var timeZone: String?
    /// Where the form was started (`"captureLocation": true` templates; seed 000's location of
    /// the respondent): from gpsd or typed with `mi new --location`. Nil when the template does
    /// not ask for it or none was available (the audit trail then says why).
    public var startLocation: Geopoint?
    /// The instances of each open repeat (one without `repeatCount`) the technician added, by
    /// `AnswerPath.countKey` (`trees`, `trees[2]/stems`). A repeat with a count has as many as
    /// its count says; empty for a form without repeats.
    public var repeats: [String: Int]
    /// The language the form is filled and printed in (one of its template's `languages`), when
    /// the template has several; nil: the template's default.
    public var language: String?

    public enum Status: String, Codable, Sendable { case incomplete, completed }

    public init(id: FormID = FormID(), name: String, user: String, template: Template, createdAt: Date) {
        self.id = id
        self.name = name
        self.user = user
        self.template = template
        self.status = .incomplete
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.submittedAt = nil
        self.returnedAt = nil
        self.returnNote = nil
        self.answers = [:]
        self.foremanComments = []
        self.audit = []
        self.consent = nil
        self.timeZone = nil
        self.startLocation = nil
        self.repeats = [:]
        self.language = nil
    }

    /// The zone `timeZone` names, or UTC.
    public var calendarTimeZone: TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
    }

    /// The clock (`now`, the machine's by default) and the form's zone that `today` and `now`
    /// are answered in and a date and time without an offset is placed in.
    public func temporalContext(now: Date = Date()) -> TemporalContext {
        TemporalContext(now: now, timeZone: calendarTimeZone)
    }

    /// Whether the form may take answers and be submitted: its template asks no consent, or
    /// the respondent accepted exactly the text this form's template copy holds.
    public var hasRequiredConsent: Bool {
        guard let digest = template.consentDigest else { return true }
        return consent?.sha256 == digest
    }

    /// The technician as a reader knows them: "Ana Pérez (ana)", or the user name alone.
    /// The template as the form reads: in the form's language.
    public var localizedTemplate: Template { template.localized(to: language) }

    public var technicianLabel: String { Self.technicianLabel(user: user, displayName: userDisplayName) }

    /// "Ana Pérez (ana)", or `user` alone when the display name is missing or the same.
    public static func technicianLabel(user: String, displayName: String?) -> String {
        guard let display = displayName, !display.isEmpty, display != user else { return user }
        return "\(display) (\(user))"
    }

    public func answer(for questionID: String) -> Answer { answers[questionID] ?? Answer() }

    /// The seed's rule: a question is done when it has an answer or a comment, as the question's
    /// type counts an answer (a photo question's answer is its attached photo). A question that
    /// takes no answer (a note) is never open.
    /// A template with form logic follows `FormLogic.isDone`: not relevant, computed or
    /// read-only is done, `required` demands a value or lets it be left empty.
    public func isDone(_ question: Question) -> Bool {
        guard !template.hasLogic else { return FormLogic(template: template).isDone(question, in: self) }
        return !question.type.takesAnswer || question.type.isDone(answer(for: question.id))
    }

    /// Every answer's place in the form (`FormLogic.slots`): a flat form's questions, each
    /// repeat's questions once per instance.
    public var slots: [AnswerSlot] {
        guard template.hasRepeats else { return template.questions.enumerated().map { AnswerSlot(question: $0.element, index: $0.offset) } }
        return FormLogic(template: template).slots(in: self)
    }

    /// The slots that still have neither an answer nor a comment (or, with form logic, are not
    /// done by its rules), in the order asked.
    public var openSlots: [AnswerSlot] {
        guard template.hasLogic else {
            return slots.filter { $0.question.type.takesAnswer && !$0.question.type.isDone(answer(for: $0.key)) }
        }
        return FormLogic(template: template).openSlots(in: self)
    }

    /// Questions that still have neither an answer nor a comment, in template order (a
    /// repeat's question once per open instance).
    public var openQuestions: [Question] { openSlots.map(\.question) }

    /// The answers the form asks for: every slot whose question takes one.
    public var answerableCount: Int { slots.reduce(0) { $0 + ($1.question.type.takesAnswer ? 1 : 0) } }

    public var mediaCount: Int { answers.values.reduce(0) { $0 + $1.media.count } }

    public var summary: FormSummary {
        FormSummary(id: id, name: name, user: user, status: status, templateID: template.id,
                    templateTitle: template.title, templateVersion: template.version, createdAt: createdAt,
                    updatedAt: updatedAt, submittedAt: submittedAt, returnedAt: returnedAt,
                    questions: answerableCount,
                    answered: answerableCount - openSlots.count, media: mediaCount)
    }

    /// Records who did what, and moves `updatedAt`.
    public mutating func record(_ event: AuditEvent) {
        audit.append(event)
        updatedAt = max(updatedAt, event.at)
    }
}

/// The answer to one question: a value, a comment, or both, and its media files.
public struct Answer: Codable, Sendable, Equatable {
    public var value: AnswerValue?
    public var comment: String?
    /// Media file names in the form folder (`Qid1(3).mp4`), in the order attached.
    public var media: [String]
    /// The cells of a table typed so far but not finished (nil where none yet), saved cell by
    /// cell so nothing typed is lost. While a draft exists the question is not done; a complete
    /// value replaces it.
    public var draft: [[String?]]?

    public init(value: AnswerValue? = nil, comment: String? = nil, media: [String] = []) {
        self.value = value
        self.comment = comment
        self.media = media
    }

    /// The seed's rule (an answer or a comment), except that a table still being typed is open.
    public var isDone: Bool {
        draft == nil && (value != nil || !(comment ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    /// How many cells of the draft hold a value.
    public var draftCellCount: Int { draft?.reduce(0) { $0 + $1.compactMap { $0 }.count } ?? 0 }

    enum CodingKeys: String, CodingKey { case value, comment, media, draft }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(AnswerValue.self, forKey: .value)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        media = try container.decodeIfPresent([String].self, forKey: .media) ?? []
        draft = try container.decodeIfPresent([[String?]].self, forKey: .draft)
    }
}

/// A value as given for a question of the matching type.
public enum AnswerValue: Codable, Sendable, Equatable {
    case text(String)
    case number(Double)
    case bool(Bool)
    /// Chosen option labels, in the template's order.
    case choices([String])
    /// Rows of cells; `nil` in the cells that take no value.
    case cells([[String?]])
    /// A point on the globe (`geopoint`), stored as `Geopoint.json`: an object with latitude,
    /// longitude and, when known, altitude and accuracy.
    case location(Geopoint)

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .text(value) }
        else if let value = try? container.decode([String].self) { self = .choices(value) }
        else if let json = try? container.decode(JSONValue.self), json.objectValue != nil {
            do {
                self = .location(try Geopoint(json: json))
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.rule)
            }
        }
        else { self = .cells(try container.decode([[String?]].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let value): try container.encode(value)
        case .number(let value): try container.encode(JSONValue.number(value))
        case .bool(let value): try container.encode(value)
        case .choices(let value): try container.encode(value)
        case .cells(let value): try container.encode(value)
        case .location(let point): try container.encode(point.json)
        }
    }

    /// The value on one line, as review tables and prompts show it.
    public var display: String {
        switch self {
        case .text(let text): return text
        case .number(let number): return formatNumber(number)
        case .bool(let bool): return bool ? "true" : "false"
        case .choices(let choices): return choices.joined(separator: ", ")
        case .cells(let rows):
            return rows.map { $0.map { $0 ?? "—" }.joined(separator: " | ") }.joined(separator: " / ")
        case .location(let point): return point.description
        }
    }
}

/// Who accepted a template's consent text, when, and which text (its SHA-256).
public struct ConsentAcceptance: Codable, Sendable, Equatable {
    public var by: String
    public var at: Date
    /// Lowercase hex SHA-256 of the consent text's UTF-8 bytes (`Template.consentDigest`).
    public var sha256: String
    public init(by: String, at: Date, sha256: String) { self.by = by; self.at = at; self.sha256 = sha256 }
}

/// A general comment a foreman adds to a completed form.
public struct ForemanComment: Codable, Sendable, Equatable {
    public var at: Date
    public var by: String
    public var text: String
    public init(at: Date, by: String, text: String) { self.at = at; self.by = by; self.text = text }
}

/// One entry of a form's audit trail: who did what, when.
public struct AuditEvent: Codable, Sendable, Equatable {
    public enum Action: String, Codable, Sendable {
        case created, answered, attached, detached, submitted, commented, returned, assigned, uploaded, renamed
        /// Where the form was started was recorded (`note`: the point and its source), or none
        /// was available (`note`: why), for a `captureLocation` template.
        case located
        /// The answers were made up by `mi simulate`: not a real inspection.
        case simulated
        /// The respondent accepted the template's consent text (`note`: its SHA-256).
        case consented
        /// Answers were withdrawn (`questions`): their values removed, comments and media kept.
        case cleared
        /// A repeat's instance was removed (`questions`: its path, `trees[2]`) with its answers
        /// and media (`note`); the instances after it moved up one.
        case removed
    }
    public var at: Date
    public var by: String
    public var action: Action
    public var questions: [String]?
    public var media: String?
    public var from: String?
    public var to: String?
    public var note: String?

    public init(at: Date, by: String, action: Action, questions: [String]? = nil, media: String? = nil,
                from: String? = nil, to: String? = nil, note: String? = nil) {
        self.at = at
        self.by = by
        self.action = action
        self.questions = questions
        self.media = media
        self.from = from
        self.to = to
        self.note = note
    }
}

/// What listings need of a form; written at the head of form.json so it can be read without
/// parsing the rest.
public struct FormSummary: Codable, Sendable, Equatable {
    public var id: FormID
    public var name: String
    public var user: String
    public var status: Form.Status
    public var templateID: String
    public var templateTitle: String
    public var templateVersion: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var submittedAt: Date?
    public var returnedAt: Date?
    public var questions: Int
    public var answered: Int
    public var media: Int

    /// Expiry (and reminders) count from the start, or from the last send-back.
    public var expiryStart: Date { max(createdAt, returnedAt ?? createdAt) }
}
