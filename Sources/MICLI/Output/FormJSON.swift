import Foundation
import MIKit

/// A form as `--json` prints it: the summary plus each question with its answer.
struct FormJSON: Encodable {
    var id: String
    var name: String
    var user: String
    var status: String
    var template: String
    var templateVersion: Int
    var title: String
    var createdAt: Date
    var updatedAt: Date
    var submittedAt: Date?
    var returnedAt: Date?
    var returnNote: String?
    var questions: [QuestionJSON]
    var foremanComments: [ForemanComment]
    var audit: [AuditEvent]?

    struct QuestionJSON: Encodable {
        var number: Int
        var id: String
        var type: String
        var text: String
        var value: AnswerValue?
        var comment: String?
        var media: [MediaFile]
        var done: Bool
    }

    init(_ form: Form, media: [MediaFile]? = nil, history: Bool = false) {
        id = form.id.uuidString.lowercased()
        name = form.name
        user = form.user
        status = form.status.rawValue
        template = form.template.id
        templateVersion = form.template.version
        title = form.template.title
        createdAt = form.createdAt
        updatedAt = form.updatedAt
        submittedAt = form.submittedAt
        returnedAt = form.returnedAt
        returnNote = form.returnNote
        questions = form.template.questions.enumerated().map { index, question in
            let answer = form.answer(for: question.id)
            let files = media?.filter { $0.questionID == question.id }
                ?? answer.media.map { MediaFile(name: $0, questionID: question.id, kind: MediaKind(extension: ($0 as NSString).pathExtension) ?? .photo, bytes: nil) }
            return QuestionJSON(number: index + 1, id: question.id, type: question.typeDescription, text: question.text,
                                value: answer.value, comment: answer.comment, media: files, done: answer.isDone)
        }
        foremanComments = form.foremanComments
        audit = history ? form.audit : nil
    }
}
