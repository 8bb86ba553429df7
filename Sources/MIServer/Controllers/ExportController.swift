import Foundation
import Hummingbird
import Logging
import MIKit

/// `GET Server.Paths.Template/export.zip` (`/api/v1/templates/{id}/export.zip?from=&to=&user=&version=&media=&format=&allVersions=`):
/// a template's stored submissions as MIKit's `ExportWriter` lays them out — a zip of
/// `<template>.csv` and `media/<form id>/<file>`, or (`format=jsonl`) one form.json per line, or
/// (`format=geojson`) a GeoJSON FeatureCollection of the forms that have a location —
/// streamed as it is made. Foremen export everyone's forms, a technician only their own. Each
/// form's current version by default; with `allVersions=true` every stored version, with the
/// CSV's `Version` and `Supersedes` columns.
struct ExportController {
    let templatePath: String
    let statistics: StoredStatistics
    let layout: DataLayout
    let sessions: SessionMiddleware
    /// The server's clock: the time every zip entry carries.
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self)
        routes.add(middleware: sessions)
        routes.get(RouterPath(templatePath + "/export.zip"), use: export)
        return routes
    }

    /// What an export request asks for besides the statistics' filters.
    struct Options: Equatable {
        var media = true
        var format = ExportFormat.zip
        var allVersions = false
    }

    /// `media` (`true` or `false`, default true) and `format` (`zip`, `jsonl` or `geojson`, default zip)
    /// of a request's query; the last of a repeated one wins. A bad value, an empty one
    /// included (no form on a page sends these two), is 400 naming the parameter.
    static func options(_ query: String?) throws -> Options {
        var options = Options()
        for (name, value) in FormQuery.parameters(query) {
            switch name {
            case "media":
                options.media = try Self.flag(name, value, choices: "true (the default) or false")
            case "allVersions":
                options.allVersions = try Self.flag(name, value, choices: "true or false (the default: each form's current version)")
            case "format":
                do {
                    options.format = try ExportFormat(parsing: value)
                } catch {
                    let csv = value.lowercased() == "csv"
                        ? ": the CSV comes in the zip (<template>.csv and one <template>-<repeat>.csv per repeat), so" : ""
                    throw HTTPError(.badRequest, message: "parameter `format` is \"\(SafeName.printable(value))\"\(csv) — give zip (the default), jsonl or geojson")
                }
            default:
                continue
            }
        }
        return options
    }

    /// `true` or `false` (any case) of parameter `name`; 400 naming it otherwise.
    private static func flag(_ name: String, _ value: String, choices: String) throws -> Bool {
        switch value.lowercased() {
        case "true": return true
        case "false": return false
        default: throw HTTPError(.badRequest, message: "parameter `\(name)` is \"\(SafeName.printable(value))\" — give \(choices)")
        }
    }

    @Sendable func export(_ request: Request, context: ServerContext) async throws -> Response {
        var filters = try StoredStatistics.filters(request.uri.query, session: try context.requireSession())
        filters.groupBy = nil
        let options = try Self.options(request.uri.query)
        let id = try context.parameters.decoded("id")
        let submissions = try await statistics.forms.list(id, filters: filters)
        let template = try await statistics.layout(of: id, version: filters.version, submissions: submissions)
        let (layout, selected, modified) = (self.layout, filters, now())
        let items = options.allVersions
            ? try await StoredExportSource.items(everyVersionOf: submissions, repository: statistics.forms.repository)
            : StoredExportSource.items(submissions)
        // Made on the thread pool: it opens the temporary files of the zip's central directory.
        let box = try await Blocking.run {
            WriterBox(try ExportWriter(template: template, source: StoredExportSource(items: items, layout: layout),
                                       format: options.format, filters: selected, includeMedia: options.media,
                                       now: modified, temporaryFolder: layout.receiving.path, reviewStates: true,
                                       everyVersion: options.allVersions))
        }
        let logger = context.logger
        let body = ResponseBody { writer in
            do {
                while let chunk = try await Blocking.run({ try box.writer.next() }) {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            } catch let error as ExportError {
                // The status and headers are gone already. Throwing breaks the chunked body
                // off without its last chunk, so the client sees a failed transfer (curl exits
                // 18, a browser marks the download failed) rather than a short file that looks
                // finished; the administrator gets this line.
                logger.error("export of \(id) stopped midway: \(error.errorDescription ?? error.code)", metadata: [
                    "formsRead": "\(box.writer.progress.formsRead)", "bytes": "\(box.writer.progress.bytes)",
                ])
                throw error
            }
            try await writer.finish(nil)
            let withoutLocation = box.writer.progress.formsWithoutLocation
            if withoutLocation > 0 {
                logger.info("GeoJSON export of \(id) left out \(withoutLocation) form(s) without a location")
            }
            let skipped = box.writer.skipped
            if !skipped.isEmpty {
                // Damaged since the upload (it was checked then): the administrator restores it.
                logger.error("export of \(id) left out \(skipped.count) submission(s) whose form.json cannot be read — restore them from a backup", metadata: [
                    "submissions": .array(skipped.prefix(20).map { .string("\($0.form): \($0.reason)") }),
                ])
            }
        }
        let name = ContentDisposition.attachment("\(id)-export.\(options.format.fileExtension)")
        await context.audit.record(.export, actor: try context.requireSession().sub, subject: id,
                                   detail: "\(options.format.fileExtension), \(submissions.count) form(s)\(request.uri.query.map { ", " + $0 } ?? "")")
        return Response(status: .ok, headers: [
            .contentType: options.format.contentType,
            .contentDisposition: name,
        ], body: body)
    }

    /// The export writer, handed between the request's task and the thread pool. Not
    /// `Sendable` by itself (it is mutable state); safe here because the body writes one chunk
    /// before it asks for the next, so no two calls on it ever overlap, and each call's
    /// effects are seen by the next through the await between them.
    private final class WriterBox: @unchecked Sendable {
        let writer: ExportWriter
        init(_ writer: ExportWriter) { self.writer = writer }
    }
}
