import ArgumentParser
import Foundation
import MIKit
import MITransport
import MIXLSForm

extension MI {
    struct Templates: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The form templates in the offline cache.",
            subcommands: [ListTemplates.self, Import.self, ExportTemplate.self], defaultSubcommand: ListTemplates.self)
    }
}

extension MI.Templates {
    struct ListTemplates: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Download the templates that changed on the server into the cache, and list them.",
            discussion: """
                Offline (or with --offline) it lists the cache and says how old it is. When the server \
                could not be asked, the cache is still listed but the exit status is the class of the \
                failure (75 when the server could not be reached: try again later); with --offline it is 0.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Download every template again, changed or not.") var refresh = false
        @Flag(help: "Do not contact the server; list the cache.") var offline = false

        struct Output: Encodable {
            var cache: String
            var online: Bool
            var downloaded: [String]
            var removed: [String]
            var missingFiles: [TemplateSync.MissingFile]
            var offlineReason: String?
            var templates: [Item]
            var invalid: [Invalid]
            struct Item: Encodable { var id: String; var title: String; var version: Int; var questionCount: Int; var cachedAt: Date? }
            struct Invalid: Encodable { var file: String; var error: String }
        }

        func run() throws {
            let context = try Context.anyone(global)
            let cache = TemplateCache(store: context.store, keys: context.configuration.templateKeys)
            var sync = TemplateSync.Result()
            var offlineReason: String? = offline ? "--offline" : nil
            var syncFailure: FailureClass?
            if !offline {
                do {
                    let client = try ServerAccess.client(context)
                    let listing = try client.templates()
                    sync = try context.run { _ in try TemplateSync.apply(listing, client: client, cache: cache, refresh: refresh) }
                } catch {
                    offlineReason = error.localizedDescription
                    syncFailure = FailureReport.describe(error).failureClass
                }
            }
            let (templates, invalid) = try context.run { _ in cache.all() }
            for item in invalid { Terminal.note("skipped \(item.file) in the template cache: \(item.error)") }
            for missing in sync.missingFiles where !global.json { Terminal.error(missing.message) }
            let newest = templates.compactMap(\.modified).max()
            if let offlineReason, !global.json {
                let age = newest.map { "last downloaded \(Format.age(since: $0))" } ?? "empty"
                Terminal.note("offline (\(offlineReason)) — listing the template cache, \(age)")
            }
            if global.json {
                try Terminal.json(Output(
                    cache: cache.folder.path, online: offlineReason == nil, downloaded: sync.downloaded, removed: sync.removed,
                    missingFiles: sync.missingFiles, offlineReason: offlineReason,
                    templates: templates.map { .init(id: $0.template.id, title: $0.template.title, version: $0.template.version,
                                                     questionCount: $0.template.questions.count, cachedAt: $0.modified) },
                    invalid: invalid.map { .init(file: $0.file, error: $0.error) }))
                if let syncFailure { throw ExitCode(syncFailure.exitCode) }
                return
            }
            for id in sync.downloaded { Terminal.out("Downloaded \(id).") }
            for id in sync.removed { Terminal.out("Removed \(id) (no longer on the server).") }
            guard !templates.isEmpty else {
                Terminal.out("No templates in the cache (\(cache.folder.path)). Download them with `mi templates` when online, or import files with `mi templates import FILE…`.")
                if let syncFailure { throw ExitCode(syncFailure.exitCode) }
                return
            }
            var table = TableRenderer(["TEMPLATE", "VERSION", "QUESTIONS", "CACHED", "TITLE"], wrapping: [4], droppable: [3])
            for entry in templates {
                table.add([entry.template.id, String(entry.template.version), String(entry.template.questions.count),
                           Format.date(entry.modified), DisplayText.escaped(entry.template.title)])
            }
            Terminal.out(table)
            // The cache was listed, but it may be out of date: a script must be able to tell.
            if let syncFailure { throw ExitCode(syncFailure.exitCode) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate template JSON files or XLSForms (.xlsx) and put them in the offline cache.",
            discussion: """
                An XLSForm (docs/xlsform.md) is converted to a template; a select_one_from_file CSV is read \
                from beside it. Any problem refuses the whole file (exit 65), one line per problem naming \
                the sheet, row and column; nothing is imported.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Template JSON files or XLSForms (.xlsx), or folders of them; the pictures a template shows are taken from <its folder>/<id>/<name>.", valueName: "file"), completion: .file())
        var files: [String]

        func run() throws {
            let context = try Context.anyone(global)
            let cache = TemplateCache(store: context.store, keys: context.configuration.templateKeys)
            var sources: [URL] = []
            for path in files {
                let url = URL(fileURLWithPath: path)
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                    throw ValidationError("\(path) does not exist")
                }
                if isFolder.boolValue {
                    let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") || XLSForm.isXLSForm($0) }.sorted()
                    sources += names.map { url.appendingPathComponent($0) }
                } else {
                    sources.append(url)
                }
            }
            // Every file is validated before any is installed: a bad file changes nothing.
            var warnings: [(String, XLSFormProblem)] = []
            let validated = try sources.map { source -> (Data, Template) in
                if XLSForm.isXLSForm(source.lastPathComponent) {
                    let imported = try XLSForm.read(contentsOf: source)
                    warnings += imported.warnings.map { (source.lastPathComponent, $0) }
                    return (try cache.coding.encodeData(imported.template), imported.template)
                }
                let data = try Data(contentsOf: source)
                return (data, try cache.coding.decode(data, source: source.lastPathComponent))
            }
            for (file, warning) in warnings where !global.json { Terminal.note("\(file): \(warning)") }
            let pictures = zip(sources, validated).map { source, item in
                Self.pictures(of: item.1, beside: source.deletingLastPathComponent())
            }
            try context.run { _ in
                for ((data, template), found) in zip(validated, pictures) {
                    try cache.install(data, source: template.id)
                    for (name, url) in found.present { try cache.installFile(try Data(contentsOf: url), name: name, of: template.id) }
                    try cache.pruneFiles(of: template)
                }
            }
            for (template, found) in zip(validated.map(\.1), pictures) {
                for name in found.missing where !global.json {
                    Terminal.error("no picture \(name) for template \(template.id) beside it (looked for \(found.folder.appendingPathComponent(name).path)) — the template can be filled without it; import it again with the picture there, or sync with `mi templates`")
                }
            }
            if global.json {
                struct Imported: Encodable { var id: String; var title: String; var version: Int; var files: [String]; var missingFiles: [String] }
                struct Output: Encodable { var imported: [Imported]; var warnings: [String] }
                try Terminal.json(Output(imported: zip(validated, pictures).map {
                    Imported(id: $0.1.id, title: $0.1.title, version: $0.1.version, files: $1.present.map(\.name), missingFiles: $1.missing)
                }, warnings: warnings.map { "\($0.0): \($0.1)" }))
            } else {
                for (_, template) in validated {
                    Terminal.out("Imported \(template.id) v\(template.version): \(DisplayText.escaped(template.title))")
                }
            }
        }
    }
}

extension MI.Templates {
    struct ExportTemplate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a cached template as an XLSForm (.xlsx).",
            discussion: """
                The workbook has the survey, choices and settings sheets (docs/xlsform.md); what XLSForm \
                has no column for is kept in the mi_settings column, so `mi templates import` of the file \
                gives the same template back. An existing file is replaced only with --force (else exit 65).
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template's id, as `mi templates` lists it.", valueName: "template"), completion: Completions.templates)
        var template: String

        @Option(help: ArgumentHelp("The .xlsx file to write.", valueName: "file"), completion: .file(extensions: ["xlsx"]))
        var xlsform: String

        @Flag(help: "Replace the file when it exists.") var force = false

        func run() throws {
            let context = try Context.anyone(global)
            let cache = TemplateCache(store: context.store, keys: context.configuration.templateKeys)
            let url = URL(fileURLWithPath: xlsform)
            let found = try context.run { _ in try cache.template(id: template) }
            try OutputFile.checkReplaceable(url, force: force)
            let data = try XLSForm.export(found)
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw ExportWriteFailed(path: url.path, reason: error.localizedDescription)
            }
            if global.json {
                struct Output: Encodable { var id: String; var version: Int; var file: String; var bytes: Int }
                try Terminal.json(Output(id: found.id, version: found.version, file: url.path, bytes: data.count))
            } else {
                Terminal.out("Wrote \(found.id) v\(found.version) as an XLSForm to \(url.path).")
            }
        }
    }

    struct ExportWriteFailed: ClassifiedError {
        var path: String
        var reason: String
        var failureClass: FailureClass { .refused }
        var code: String { "write-failed" }
        var errorDescription: String? { "\(path) could not be written: \(reason)" }
    }
}

extension MI.Templates.Import {
    /// The pictures `template` names, found in `<folder>/<id>/<name>` (a regular file) or not.
    struct Pictures {
        var folder: URL
        var present: [(name: String, url: URL)] = []
        var missing: [String] = []
    }

    static func pictures(of template: Template, beside folder: URL) -> Pictures {
        var found = Pictures(folder: folder.appendingPathComponent(template.id, isDirectory: true))
        for name in template.files {
            let url = found.folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                found.present.append((name, url))
            } else {
                found.missing.append(name)
            }
        }
        return found
    }
}
