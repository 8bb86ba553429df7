import Foundation
import Hummingbird
import MIKit

/// `/submissions/{id}`: one uploaded form as the office reads it — the header, every question
/// with its answer and comment (tables as grids, the no-value cells red-bordered as the seed
/// draws them), photos, players for video and audio, the foreman's comments, the audit trail —
/// and its downloads: each media file, form.json and the PDF `mi print` makes. A form corrected
/// after the office sent it back has versions: the page lists them, shows any one
/// (`?version=N`, its form.json and PDF too) and what changed from the version before it
/// (or from `?from=M`), as `FormDiff` computes it for the API.
struct SubmissionPageController {
    let views: OfficeViews
    let repository: any SubmissionRepository
    let layout: DataLayout
    /// Where the pictures of the submission's template are, for the PDF.
    let templates: TemplateCatalog
    /// The review panel (`Review/ReviewPage`).
    let review: ReviewPage
    /// The PDF is written by mi-report; one stuck on a hostile form is stopped after this.
    static let reportTimeout: TimeInterval = 60

    func register(on pages: RouteCollection<ServerContext>) {
        pages.get("submissions/{id}", use: page)
        pages.get("submissions/{id}/form.json", use: formJSON)
        pages.get("submissions/{id}/report.pdf", use: report)
    }

    @Sendable func page(_ request: Request, context: ServerContext) async throws -> Response {
        let parameters = SubmissionListController.parameters(of: request)
        let (receipt, stored, _) = try await load(context, request: request)
        let language = parameters["lang"]
        var values = Self.values(stored, receipt: receipt, language: language)
        values["review"] = try await review.values(receipt, form: stored, session: try context.requireSession())
        try await addVersions(to: &values, shown: receipt, from: parameters["from"], session: try context.requireSession())
        let form = stored.shown(in: language)
        await context.audit.record(.submissionView, actor: try context.requireSession().sub, subject: receipt.id.description, detail: "office page")
        return views.page("submission", title: "\(form.name) · \(form.template.title)", context: context,
                          section: .submissions, values: values)
    }

    @Sendable func formJSON(_ request: Request, context: ServerContext) async throws -> Response {
        let (_, form, data) = try await load(context, request: request)
        return Response(status: .ok, headers: [
            .contentType: "application/json; charset=utf-8",
            .contentDisposition: ContentDisposition.attachment("\(form.name)-form.json"),
        ], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    @Sendable func report(_ request: Request, context: ServerContext) async throws -> Response {
        let (receipt, form, _) = try await load(context, request: request)
        let folder = layout.folder(of: receipt)
        let output = layout.receiving.appendingPathComponent("report-\(UUID().uuidString.lowercased()).pdf")
        let pdf: Data
        do {
            pdf = try await Blocking.run {
                defer { try? FileManager.default.removeItem(at: output) }
                try ReportWriter.writePDF(of: folder, to: output, paper: "auto", pictures: templates.filesFolder(id: form.template.id),
                                          timeout: Self.reportTimeout)
                return try Data(contentsOf: output)
            }
        } catch let error as ReportWriterError {
            context.logger.error("no PDF for submission \(receipt.id): \(error.errorDescription ?? error.code)")
            throw HTTPError(.serviceUnavailable, message: "the PDF could not be made (\(error.errorDescription ?? error.code)) — the server's log has the details")
        }
        return Response(status: .ok, headers: [
            .contentType: "application/pdf",
            .contentDisposition: ContentDisposition.attachment("\(form.name).pdf"),
        ], body: .init(byteBuffer: ByteBuffer(bytes: pdf)))
    }

    /// The submission in the path, when the session may read it — its current version, or the
    /// one `?version=` names — with its stored form.json.
    private func load(_ context: ServerContext, request: Request) async throws -> (receipt: Receipt, form: Form, data: Data) {
        let id = try context.parameters.require("id"), session = try context.requireSession()
        let receipt: Receipt
        if let version = SubmissionListController.parameters(of: request)["version"] {
            receipt = try await review.service.version(version, of: id, session: session)
        } else {
            receipt = try await SubmissionAccess.receipt(id, for: session, in: repository)
        }
        let (form, data) = try await SubmissionAccess.form(of: receipt, layout: layout)
        return (receipt, form, data)
    }

    /// The versions panel's values, when the form has more than one: each version with a link,
    /// which is shown, and the changes to it from the one before (or from version `from`).
    private func addVersions(to values: inout [String: Any], shown: Receipt, from: String?, session: SessionClaims) async throws {
        let id = shown.id.description
        let all = try await review.service.versions(of: id, session: session)
        let version = shown.storedVersion
        if version != all.current { values["versionQuery"] = "?version=\(version)" }
        guard all.versions.count > 1 else { return }
        values["versions"] = [
            "current": all.current, "shown": version, "isOld": version != all.current,
            "list": all.versions.reversed().map { receipt -> [String: Any] in
                let number = receipt.storedVersion
                return ["number": number, "uploaded": OfficeFormat.dateTime(receipt.receivedAt), "by": receipt.uploadedBy,
                        "isCurrent": number == all.current, "isShown": number == version,
                        "url": "/submissions/\(id)" + (number == all.current ? "" : "?version=\(number)"),
                        "hasChanges": number > 1, "changesURL": "/submissions/\(id)?version=\(number)#changes"]
            },
        ] as [String: Any]
        guard from != nil || version > 1 else { return }
        let diff = try await review.service.diff(all, from: from, to: String(version))
        values["changes"] = [
            "from": diff.from, "to": diff.to, "none": diff.changes.isEmpty,
            "items": diff.changes.map { change -> [String: Any] in
                var item: [String: Any] = ["kind": change.kind.rawValue, "label": change.label,
                                           "question": change.question ?? "(the form)",
                                           "before": change.before ?? "", "after": change.after ?? ""]
                if let media = change.media, let sha256 = change.sha256 {
                    let side = change.kind == .mediaRemoved ? "before" : "after"
                    item[side] = "\(media) (SHA-256 \(sha256.prefix(12))…)"
                    item["sha256"] = sha256
                }
                return item
            },
        ] as [String: Any]
    }

    // MARK: - The view's values

    /// The page's values, the form shown in `language` (one of its template's, `?lang=`; else
    /// the form's own), with a switch to each of the template's languages when it has several.
    static func values(_ stored: Form, receipt: Receipt, language: String? = nil) -> [String: Any] {
        let form = stored.shown(in: language)
        let shownLanguage = language.flatMap { stored.template.language(matching: $0) } ?? stored.language ?? stored.template.defaultLanguage
        let id = receipt.id.description
        let logic = FormLogic(template: form.template)
        let media = mediaFolderURL(receipt)
        let nodes = Self.nodes(logic.layout(of: form), form: form, logic: logic, media: media)
        var values: [String: Any] = [
            "id": id,
            "formName": form.name,
            "simulated": form.isSimulated,
            "templateTitle": form.template.title,
            "templateID": form.template.id,
            "templateVersion": form.template.version,
            "technician": form.technicianLabel,
            "created": OfficeFormat.dateTime(form.createdAt),
            "submitted": form.submittedAt.map(OfficeFormat.dateTime) ?? "not submitted",
            "uploaded": OfficeFormat.dateTime(receipt.receivedAt),
            "uploadedBy": receipt.uploadedBy,
            "answered": form.answerableCount - form.openSlots.count,
            "questionCount": form.answerableCount,
            "mediaCount": form.mediaCount,
            "nodes": nodes,
            "hasForemanComments": !form.foremanComments.isEmpty,
            "foremanComments": form.foremanComments.map { ["at": OfficeFormat.dateTime($0.at), "by": $0.by, "text": $0.text] },
            "audit": Self.history(form, receipt).map { ["at": OfficeFormat.dateTime($0.at), "sentence": $0.sentence] },
            "media": receipt.parts.filter { $0.name != UploadPart.formName }.map { part in
                ["name": part.name, "url": mediaURL(media, part.name), "size": ByteCount.string(part.size)]
            },
        ]
        let switchValues = LanguageSwitch.values(stored.template, shown: shownLanguage)
        if !switchValues.isEmpty { values["languages"] = switchValues; values["hasLanguages"] = true }
        if let consent = consent(form) { values["consent"] = consent }
        if let point = form.startLocation {
            values["startLocation"] = location(point)
        } else if form.template.captureLocation {
            values["noStartLocation"] = true
        }
        if let sheet = form.scores { values["scores"] = scores(sheet, template: form.template) }
        return values
    }

    /// The template's consent text and its acceptance: who, when, and the SHA-256 of the text
    /// accepted (flagged when it is not this text's).
    /// The form's history ending with its upload as the server recorded it (who, when): the
    /// client writes no upload event, since an attempt is an upload only once its receipt is
    /// verified. A form from an older client that wrote its own keeps that one.
    static func history(_ form: Form, _ receipt: Receipt) -> [AuditEvent] {
        guard !form.audit.contains(where: { $0.action == .uploaded }) else { return form.audit }
        return form.audit + [AuditEvent(at: receipt.receivedAt, by: receipt.uploadedBy, action: .uploaded)]
    }

    static func consent(_ form: Form) -> [String: Any]? {
        guard let text = form.template.consent else { return nil }
        var values: [String: Any] = ["text": text]
        if let acceptance = form.consent {
            values["accepted"] = [
                "by": acceptance.by, "at": OfficeFormat.dateTime(acceptance.at), "sha256": acceptance.sha256,
                "otherText": acceptance.sha256 != form.template.consentDigest,
            ] as [String: Any]
        }
        return values
    }

    /// The scores of the form's answers as MIKit computes them (the same computation the
    /// receipt's come from), the items a scorer judged one by one, and its note.
    static func scores(_ sheet: ScoreSheet, template: Template) -> [String: Any] {
        let numbers = Dictionary(template.questions.enumerated().map { ($1.id, ($0 + 1, $1.text)) },
                                 uniquingKeysWith: { first, _ in first })
        var values: [String: Any] = [
            "scoring": sheet.scoring.rawValue,
            "values": sheet.values.map { ["key": $0.key, "value": $0.value.display] },
            "hasValues": !sheet.values.isEmpty,
            "hasItems": !sheet.items.isEmpty,
            "items": sheet.items.map { item -> [String: Any] in
                let question = numbers[item.question]
                return ["question": item.question, "number": question.map { String($0.0) } ?? "",
                        "text": question?.1 ?? "", "result": item.result.rawValue, "summary": item.summary,
                        "points": item.points.map { "\($0)/\(item.maxPoints)" } ?? "—"]
            },
        ]
        if let note = sheet.note { values["note"] = note }
        return values
    }

    /// A point's figures for the view: decimal degrees, metres when known, and a `geo:` link
    /// (RFC 5870) that a phone opens in its map.
    static func location(_ point: Geopoint) -> [String: Any] {
        var values: [String: Any] = [
            "latitude": formatNumber(point.latitude), "longitude": formatNumber(point.longitude),
            "geo": "geo:\(formatNumber(point.latitude)),\(formatNumber(point.longitude))",
        ]
        if let altitude = point.altitude { values["altitude"] = formatNumber(altitude) }
        if let accuracy = point.accuracy { values["accuracy"] = formatNumber(accuracy) }
        return values
    }

    /// Where the API serves the media of the stored version `receipt` describes, up to the name.
    static func mediaFolderURL(_ receipt: Receipt) -> String {
        let version = receipt.storedVersion
        return "/api/v1/submissions/\(receipt.id)" + (version > 1 ? "/versions/\(version)" : "") + "/media/"
    }

    /// Media file `name` of the version whose media are served at `folder` (`mediaFolderURL`).
    static func mediaURL(_ folder: String, _ name: String) -> String { folder + FormQuery.encoded(name) }

    /// The office's address of a picture a template shows (`TemplatesPage`).
    static func pictureURL(_ templateID: String, _ name: String) -> String {
        "/templates/\(FormQuery.encoded(templateID))/files/\(FormQuery.encoded(name))"
    }

    /// The form's questions, groups and repeats as the view draws them (the partial
    /// `submission-node`, recursive): each node says which of the four it is, so that a key a
    /// node lacks is never read from a node around it.
    static func nodes(_ nodes: [FormNode], form: Form, logic: FormLogic, media id: String) -> [[String: Any]] {
        nodes.map { node -> [String: Any] in
            var values: [String: Any] = ["isQuestion": false, "isGroup": false, "isTable": false, "isSections": false]
            switch node {
            case .question(let slot):
                values["isQuestion"] = true
                values["question"] = question(slot.question, number: slot.index + 1, answer: form.answer(for: slot.key),
                                              done: logic.isDone(slot, in: form), relevant: logic.isRelevant(slot, in: form),
                                              path: slot.key, media: id, templateID: form.template.id)
            case .group(let group, let instance, let children):
                values["isGroup"] = true
                values["group"] = [
                    "label": group.label, "groupID": group.id,
                    "notRelevant": !logic.isRelevant(group: group, at: instance, in: form),
                    "children": Self.nodes(children, form: form, logic: logic, media: id),
                ] as [String: Any]
            case .repeat(let group, let parent, let instances):
                let path = AnswerPath.countKey(group.id, in: parent)
                let relevant = logic.isRelevant(group: group, at: parent, in: form)
                if let table = logic.repeatTable(of: group, instances: instances, in: form), !instances.isEmpty {
                    values["isTable"] = true
                    values["table"] = Self.tableValues(table, path: path, relevant: relevant)
                } else {
                    values["isSections"] = true
                    values["sections"] = [
                        "label": group.label, "repeatID": group.id, "path": path, "notRelevant": !relevant,
                        "count": instances.count, "empty": instances.isEmpty,
                        "instances": instances.map { instance -> [String: Any] in
                            [
                                "label": group.instanceLabel(instance.number), "path": instancePath(instance.instance),
                                "notRelevant": !logic.isRelevant(group: group, at: instance.instance, in: form),
                                "children": Self.nodes(instance.children, form: form, logic: logic, media: id),
                            ]
                        },
                    ] as [String: Any]
                }
            }
            return values
        }
    }

    /// `pumps[2]/seals[1]`: where an instance stands.
    static func instancePath(_ steps: [InstanceStep]) -> String { String(AnswerPath.prefix(steps).dropLast()) }

    /// A repeat of simple questions as one table: a row per instance, a column per question.
    static func tableValues(_ table: RepeatTable, path: String, relevant: Bool) -> [String: Any] {
        [
            "label": table.group.label, "repeatID": table.group.id, "path": path, "notRelevant": !relevant,
            "count": table.rows.count,
            "columns": table.columns.map { ["text": $0.text, "id": $0.id, "help": $0.help ?? ""] },
            "tableRows": table.rows.map { row -> [String: Any] in
                [
                    "label": row.label, "path": instancePath(row.instance.instance),
                    "notRelevant": !row.isRelevant,
                    "cells": row.cells.map { cell -> [String: Any] in
                        var values: [String: Any] = ["path": cell.slot.key, "open": !cell.isDone, "notRelevant": false,
                                                     "noAnswer": false, "value": ""]
                        if let comment = cell.comment { values["comment"] = comment }
                        switch cell.state {
                        case .notRelevant: values["notRelevant"] = true
                        case .noAnswer: values["noAnswer"] = true
                        case .value(let text): values["value"] = text
                        }
                        return values
                    },
                ]
            },
        ]
    }

    static func question(_ question: Question, number: Int, answer: Answer, done: Bool, relevant: Bool = true, path: String? = nil,
                         media id: String, templateID: String) -> [String: Any] {
        var values: [String: Any] = [
            "id": question.id, "path": path ?? question.id, "number": number, "text": question.text,
            "type": question.typeDescription, "done": done, "notRelevant": !relevant,
        ]
        if let help = question.help { values["help"] = help }
        if let picture = question.image { values["picture"] = ["name": picture, "url": pictureURL(templateID, picture)] }
        if let comment = answer.comment, !comment.isEmpty { values["comment"] = comment }
        // The answer in its type's shape (`QuestionType.presentation`).
        switch question.type.presentation(of: answer) {
        case .choices(let list)?:
            values["choices"] = list.options.map { ["label": $0, "chosen": list.chosen.contains($0)] }
            values["hasChoices"] = true
            values["answered"] = !list.chosen.isEmpty
        case .grid(let grid, let cells)?:
            values["grid"] = [
                "columns": grid.columns,
                "rows": grid.rows.enumerated().map { row, label in
                    [
                        "label": label,
                        "cells": grid.columns.indices.map { column -> [String: Any] in
                            let noValue = grid.noCells.contains(Cell(row: row, column: column))
                            let text = GridLayout.cell(cells, row, column)
                            return ["noValue": noValue, "text": noValue ? "" : (text ?? "")]
                        },
                    ] as [String: Any]
                },
            ] as [String: Any]
            values["answered"] = answer.value != nil
        case .note?:
            values["note"] = true
        case .location(let point)?:
            values["location"] = location(point)
            values["answered"] = true
        case .media(let kind, let names)?:
            // The files themselves are drawn with the question's media below.
            values["mediaAnswer"] = kind.attached(names.count)
            values["answered"] = !names.isEmpty
        case .yesNo, .text, nil:
            if let value = answer.value {
                values["value"] = value.display
                values["answered"] = true
            } else {
                values["answered"] = false
            }
        }
        values["hasMedia"] = !answer.media.isEmpty
        values["media"] = answer.media.map { name -> [String: Any] in
            let kind = MediaKind(extension: (name as NSString).pathExtension)
            return ["name": name, "url": mediaURL(id, name), "photo": kind == .photo, "video": kind == .video,
                    "audio": kind == .audio, "other": kind == nil]
        }
        return values
    }
}

/// How the office writes dates: ISO-like, minutes, UTC, the same on every page.
enum OfficeFormat {
    static func dateTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
    }
}
