import Foundation
import Hummingbird
import MIKit
import MIXLSForm

/// The office's templates: `/templates` (every template with its versions, their downloads and
/// the upload form), the editor (`/templates/new`, `/templates/{id}/edit`, with `editor.js`),
/// and what the editor and the upload post: `/templates/check` (a draft in, its problems and
/// the preview `mi fill` would show out), `/templates/publish` and `/templates/upload`.
/// Editing and publishing need the publish right (`PublishRight`): 403 otherwise, and the
/// pages show those actions only to those who have it.
struct TemplatesPage {
    /// The upload form's file field.
    static let uploadField = "template"

    let views: OfficeViews
    let publisher: TemplatePublisher
    var catalog: TemplateCatalog { publisher.catalog }

    func register(on pages: RouteCollection<ServerContext>) {
        pages.get("templates", use: list)
        pages.get("templates/new", use: newTemplate)
        pages.get("templates/{id}/edit", use: edit)
        pages.get("templates/{id}/versions/{version}", use: download)
        pages.get("templates/{id}/versions/{version}/xlsform", use: downloadXLSForm)
        pages.get("templates/{id}/files/{name}", use: file)
        pages.post("templates/check", use: check)
        pages.post("templates/publish", use: publish)
        pages.post("templates/upload", use: upload)
    }

    /// The answer to a publish: which version of which template is now the newest.
    struct Published: Codable, Equatable {
        var id: String
        var version: Int
        var fileName: String
    }

    // MARK: - Pages

    /// A picture a template shows, for the office pages' `<img>` (the API's route needs a token).
    @Sendable func file(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireSession()
        return try await TemplateFiles.response(id: context.parameters.decoded("id"), name: context.parameters.decoded("name"),
                                                catalog: catalog)
    }

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requireSession()
        var notice: String?
        if let id = request.uri.queryParameters.get("published"), let version = request.uri.queryParameters.get("version") {
            notice = "Published \(id) version \(version)."
        }
        return try await listPage(context: context, session: session, notice: notice)
    }

    private func listPage(context: ServerContext, session: SessionClaims, notice: String? = nil,
                          problems: [String] = [], warnings: [String] = [], status: HTTPResponse.Status = .ok) async throws -> Response {
        let catalog = self.catalog
        let all = try await Blocking.run { catalog.allVersions() }
        let ids = Array(Set(all.map(\.id))).sorted()
        let rows: [[String: Any]] = ids.map { id in
            let versions = all.filter { $0.id == id }.sorted { $0.version > $1.version }
            return [
                "id": id, "path": Self.pathSegment(id), "title": versions.first?.title ?? "", "newest": versions.first?.version ?? 0,
                "versions": versions.map { ["version": $0.version, "fileName": $0.fileName, "title": $0.title,
                                            "xlsformName": "\($0.id).v\($0.version).xlsx"] },
                "pictures": (versions.first?.files ?? []).map { name in
                    ["name": name, "question": "A picture the questions show",
                     "url": SubmissionPageController.pictureURL(id, name)]
                },
            ]
        }
        var values: [String: Any] = [
            "templates": rows, "empty": rows.isEmpty, "mayPublish": session.mayPublish,
            "problems": problems, "hasProblems": !problems.isEmpty,
            "warnings": warnings, "hasWarnings": !warnings.isEmpty,
        ]
        // Only when there is one: mustache would show an absent optional as "nil".
        if let notice { values["notice"] = notice }
        return views.page("templates", title: "Templates", context: context, section: .templates, values: values,
                          status: status)
    }

    @Sendable func newTemplate(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requirePublisher()
        return editorPage(context: context, title: "New template", source: nil)
    }

    @Sendable func edit(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requirePublisher()
        let id = try Self.templateID(context)
        let catalog = self.catalog
        guard let entry = try await Blocking.run({ catalog.template(id: id) }) else {
            throw HTTPError(.notFound, message: "the server has no template \"\(id)\" — the templates page lists those it has")
        }
        return editorPage(context: context, title: "Edit \(entry.title)", source: entry)
    }

    /// The editor reads the configured key names from `data-keys`, the question types (their
    /// names, menu labels, the settings keys each has and how each is edited — `editorFields`
    /// — from `QuestionTypes.all`, and the logic keys' fields, `QuestionLogic.editorFields`) from `data-types`, the template's own editable keys
    /// (`Template.editorFields`) from `data-template-fields`, the kinds of group (a group, a
    /// repeat) with their fields (`QuestionGroup.editorFields`) from `data-groups`, and the version it starts from
    /// with a GET of `data-source`.
    private func editorPage(context: ServerContext, title: String, source: TemplateCatalog.Entry?) -> Response {
        let keys = Dictionary(uniqueKeysWithValues: TemplateKeys.Key.allCases.map { ($0.rawValue, catalog.coding.keys[$0]) })
        let keysJSON = (try? JSONSerialization.data(withJSONObject: keys, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let types = QuestionTypes.all.map { type -> [String: Any] in
            ["type": type.typeKey.rawValue, "label": type.displayName, "keys": type.keys.map(\.rawValue),
             "fields": type.editorFields.map(\.editorJSON), "logic": QuestionLogic.editorFields(for: type).map(\.editorJSON)]
        }
        let typesJSON = (try? JSONSerialization.data(withJSONObject: types, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let templateFields = Template.editorFields.map(\.editorJSON)
        let templateFieldsJSON = (try? JSONSerialization.data(withJSONObject: templateFields, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let groups = [QuestionGroup.Kind.group, .repeat].map { kind -> [String: Any] in
            ["kind": QuestionGroup.typeKey(of: kind).rawValue, "label": QuestionGroup.displayName(of: kind),
             "fields": QuestionGroup.editorFields(for: kind).map(\.editorJSON)]
        }
        let groupsJSON = (try? JSONSerialization.data(withJSONObject: groups, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        var values: [String: Any] = ["heading": title, "keys": keysJSON, "types": typesJSON, "templateFields": templateFieldsJSON,
                                     "groups": groupsJSON,
                                     "typeOptions": types.map { ["type": $0["type"] ?? "", "label": $0["label"] ?? ""] }]
        if let source {
            values["basedOnId"] = source.id
            values["source"] = "/templates/\(Self.pathSegment(source.id))/versions/\(source.version)"
            values["basedOn"] = "\(source.id) version \(source.version)"
        }
        return views.page("editor", title: title, context: context, section: .templates, values: values, scripts: ["editor.js"])
    }

    /// The published version the route names (`/templates/{id}/versions/{version}`), for a signed-in user.
    private func versionEntry(_ context: ServerContext) async throws -> TemplateCatalog.Entry {
        _ = try context.requireSession()
        let id = try Self.templateID(context)
        guard let version = context.parameters.get("version", as: Int.self) else {
            throw HTTPError(.notFound, message: "a version is a whole number, as the templates page lists them")
        }
        let catalog = self.catalog
        guard let entry = try await Blocking.run({ catalog.template(id: id, version: version) }) else {
            throw HTTPError(.notFound, message: "the server has no version \(version) of template \"\(id)\" — the templates page lists the versions it has")
        }
        return entry
    }

    @Sendable func download(_ request: Request, context: ServerContext) async throws -> Response {
        let entry = try await versionEntry(context)
        return Response(status: .ok, headers: [
            .contentType: "application/json",
            .contentDisposition: ContentDisposition.attachment(entry.fileName),
            .eTag: "\"\(entry.sha256)\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: entry.data)))
    }

    /// A version as an XLSForm (`XLSForm.export`): importing it gives the same template.
    @Sendable func downloadXLSForm(_ request: Request, context: ServerContext) async throws -> Response {
        let entry = try await versionEntry(context)
        let coding = catalog.coding
        let data = try await Blocking.run { try XLSForm.export(try coding.decode(entry.data, source: entry.fileName)) }
        return Response(status: .ok, headers: [
            .contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            .contentDisposition: ContentDisposition.attachment("\(entry.id).v\(entry.version).xlsx"),
        ], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: - The editor's requests (JSON)

    @Sendable func check(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requirePublisher()
        let draft = try await Self.draft(request)
        let basedOn = Self.basedOn(request)
        let publisher = self.publisher
        return try JSONResponse.make(.ok, try await Blocking.run { publisher.check(draft, basedOn: basedOn) })
    }

    /// 201 with what was published; 422 with the draft's problems; 409 when the version was
    /// taken, when a new template has the id of a published one (`template-id-exists`; the
    /// editor links to that template's editor), or when the draft is the newest version again
    /// (`template-unchanged`: a second click publishes nothing).
    @Sendable func publish(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requirePublisher()
        let draft = try await Self.draft(request)
        let basedOn = Self.basedOn(request)
        let publisher = self.publisher
        do {
            let entry = try await Blocking.run { try publisher.publish(draft: draft, basedOn: basedOn) }
            context.logger.info("\(session.sub) published template \(entry.id) v\(entry.version)")
            await context.audit.record(.templatePublish, actor: session.sub, subject: entry.id, detail: "version \(entry.version) (editor)")
            return try JSONResponse.make(.created, Published(id: entry.id, version: entry.version, fileName: entry.fileName))
        } catch let error as TemplateError {
            return try JSONResponse.make(.unprocessableContent, TemplateDraftReport(problems: TemplateDraftReport.problems(of: error), preview: ""))
        } catch let error as TemplatePublishError {
            return try JSONResponse.error(.conflict, message: error.errorDescription ?? error.code, code: error.code)
        }
    }

    /// `basedOn` of the editor's check and publish: the id of the template the editor was
    /// opened from; absent (or empty) for a new template.
    static func basedOn(_ request: Request) -> String? {
        request.uri.queryParameters.get("basedOn").flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: - The upload form (a page)

    /// Publishes the file of the form's `template` field as it is, then shows the templates page
    /// (303 after success, so a reload does not post again); problems are listed on the page.
    @Sendable func upload(_ request: Request, context: ServerContext) async throws -> Response {
        let session = try context.requirePublisher()
        let files = try await Self.uploadedFiles(request)
        let publisher = self.publisher
        do {
            let (entry, warnings, file) = try await Blocking.run { try Self.publish(files, with: publisher) }
            context.logger.info("\(session.sub) published template \(entry.id) v\(entry.version) from \(file)")
            await context.audit.record(.templatePublish, actor: session.sub, subject: entry.id, detail: "version \(entry.version) from \(file)")
            if !warnings.isEmpty {
                return try await listPage(context: context, session: session, notice: "Published \(entry.id) version \(entry.version).",
                                          warnings: warnings)
            }
            return OfficeViews.redirect(to: "/templates?published=\(Self.pathSegment(entry.id))&version=\(entry.version)")
        } catch let error as XLSFormError {
            return try await listPage(context: context, session: session, problems: error.problems.map { "\(error.file): \($0)" },
                                      status: .unprocessableContent)
        } catch let error as TemplateError {
            let problems = TemplateDraftReport.problems(of: error).map(Self.sentence)
            return try await listPage(context: context, session: session, problems: problems, status: .unprocessableContent)
        } catch let error as TemplatePublishError {
            return try await listPage(context: context, session: session, problems: [error.errorDescription ?? error.code],
                                      status: .conflict)
        }
    }

    /// `template t, question q, field "f": message`.
    static func sentence(_ problem: TemplateDraftReport.Problem) -> String {
        var parts = ["template \(problem.template)"]
        if let question = problem.question { parts.append("question \(question)") }
        if let field = problem.field { parts.append("field \"\(field)\"") }
        return parts.joined(separator: ", ") + ": " + problem.message
    }

    // MARK: - Helpers

    /// The request's JSON body, parsed but not yet validated.
    private static func draft(_ request: Request) async throws -> JSONValue {
        let buffer = try await request.body.collect(upTo: TemplateCatalog.maximumFileBytes)
        do {
            return try JSONValue.parse(Data(buffer: buffer))
        } catch {
            throw HTTPError(.badRequest, message: "the draft is not valid JSON — reload the editor")
        }
    }

    /// Publishes an upload: a template JSON file as it is, or an XLSForm (`.xlsx`) converted, with
    /// the CSV files sent beside it for its `select_one_from_file` rows. Returns the entry, the
    /// XLSForm's warnings, and the file's name.
    static func publish(_ files: [MultipartFileCollector.File], with publisher: TemplatePublisher) throws
        -> (TemplateCatalog.Entry, [String], String) {
        guard let form = files.first(where: { XLSForm.isXLSForm($0.filename) }) else {
            guard files.count == 1, let file = files.first else {
                throw HTTPError(.badRequest, message: "several files were sent without an XLSForm among them — send one template .json, or one .xlsx with its CSV files")
            }
            return (try publisher.publish(upload: file.data, fileName: file.filename), [], file.filename)
        }
        guard files.filter({ XLSForm.isXLSForm($0.filename) }).count == 1 else {
            throw HTTPError(.badRequest, message: "several XLSForms were sent — upload one at a time, each with its CSV files")
        }
        var beside: [String: Data] = [:]
        for file in files where !XLSForm.isXLSForm(file.filename) { beside[file.filename] = file.data }
        let imported = try XLSForm.read(data: form.data, fileName: form.filename, files: beside)
        let data = try publisher.coding.encodeData(imported.template)
        let entry = try publisher.publish(upload: data, fileName: form.filename)
        return (entry, imported.warnings.map { "\(form.filename): \($0)" }, form.filename)
    }

    private static func uploadedFiles(_ request: Request) async throws -> [MultipartFileCollector.File] {
        let boundary = try MultipartReceiver.boundary(contentType: request.headers[.contentType])
        let collector = MultipartFileCollector(field: uploadField, limit: CSRFMiddleware.maximumMultipartBytes)
        do {
            try await collector.collect(request.body, boundary: boundary)
        } catch let error as MultipartSyntaxError {
            throw HTTPError(.badRequest, message: "the upload is not a valid form: \(error.problem) — choose the file again")
        }
        let files = collector.files.filter { !$0.data.isEmpty }
        guard !files.isEmpty else {
            throw HTTPError(.badRequest, message: "no template file was sent — choose a .json file (or an .xlsx XLSForm) to upload")
        }
        return files.map { file in
            let name = URL(fileURLWithPath: file.filename.isEmpty ? "upload.json" : file.filename).lastPathComponent
            return MultipartFileCollector.File(filename: SafeName.printable(name), data: file.data)
        }
    }

    /// The `{id}` of the path, percent-decoded (the router hands segments on as sent).
    private static func templateID(_ context: ServerContext) throws -> String {
        try context.parameters.decoded("id")
    }

    /// A template id as one segment of a URL path (ids may hold `?`, `#`, `%` or spaces).
    static func pathSegment(_ id: String) -> String {
        FormQuery.encoded(id)
    }
}

extension ServerContext {
    /// The session's claims when the user may publish templates, else 403.
    func requirePublisher() throws -> SessionClaims {
        let session = try requireSession()
        guard session.mayPublish else {
            throw HTTPError(.forbidden, message: "you (\(session.sub)) may not edit or publish templates — ask an administrator (LDAP.AdminGroup, or the foremen when it is not set)")
        }
        return session
    }
}
