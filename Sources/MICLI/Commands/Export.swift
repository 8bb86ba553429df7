import ArgumentParser
import Foundation
import MIKit
#if canImport(Glibc)
import Glibc
#endif

extension MI {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a template's completed forms as a zip (CSV + media), JSON Lines or GeoJSON (a foreman: everyone's).",
            discussion: """
                Writes the completed (submitted) forms in this computer's store — a technician's own, a foreman's \
                of every technician — to --output. The zip holds <template>.csv (UTF-8 with a byte-order mark, \
                RFC 4180, one row per form: SubmissionDate, a column per question, <question>/<option> 0/1 columns, \
                <question>-<row>-<column> table cells, <question>-comment, then KEY, User, UserName, FormVersion, \
                AttachmentsPresent, AttachmentsExpected, ForemanComments) and media/<form id>/<file> (not with \
                --no-media). A template with repeats adds one <template>-<repeat>.csv per repeat (ODK Central's long \
                format: a row per instance, the repeat's questions, then PARENT_KEY — the form's KEY, or the parent \
                instance's for a nested repeat — and KEY, <form id>/trees[2]); <template>.csv then holds the questions \
                outside every repeat, and --format jsonl nests the instances (a repeat is an array of objects). There is \
                no csv format: the CSVs come in the zip. A location question adds <question>-Latitude, -Longitude, -Altitude and -Accuracy columns, and a \
                template that records where forms are started StartLocation-Latitude … after SubmissionDate. \
                --format jsonl writes one form.json per line instead; --format geojson a GeoJSON FeatureCollection with one \
                Point feature per form, at where it was started or else its first location answer, coordinates \
                [longitude, latitude, altitude], the answers as properties (forms without a location are left out \
                and counted). An existing --output file is replaced only with --force. The same layout as the server's \
                /api/v1/templates/{id}/export.zip. Dates are UTC days of submission (--to is inclusive). The file \
                appears only once complete: a failed export leaves nothing at --output.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The template id (`mi templates` lists them).", valueName: "template"), completion: Completions.templates)
        var template: String

        @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (an existing one only with --force).", valueName: "file"),
                completion: .file())
        var output: String

        @Flag(help: "Replace the --output file if it exists.")
        var force = false

        @OptionGroup var selection: FormSelectionOptions

        @Flag(name: .customLong("no-media"), help: "Leave the media files out of the zip (the CSV still counts them).")
        var noMedia = false

        @Option(help: ArgumentHelp("zip (CSV and media), jsonl (one form.json per line) or geojson (a point per form).", valueName: "format"))
        var format = "zip"

        /// `--json`'s summary.
        struct Summary: Encodable {
            struct Skipped: Encodable { var form: String; var reason: String }
            var output: String
            var format: String
            var template: String
            var templateVersion: Int
            /// Counts end in `Count` in every output (`forms` is a list wherever it appears).
            var formCount: Int
            var mediaCount: Int
            var bytes: UInt64
            var skipped: [Skipped]
            /// GeoJSON: forms left out because they have no location (absent for other formats).
            var withoutLocationCount: Int?
        }

        func run() throws {
            let format = try ExportFormat(parsing: format)
            let filters = try selection.filters()
            try OutputFile.checkReplaceable(URL(fileURLWithPath: output), force: force)
            let context = try Context.anyone(global)
            // Listed under the store's lock; written outside it, so a long export holds no one up
            // (a form deleted meanwhile is skipped and named).
            let local = try context.runListing(reminders: false) { workflow, listing in
                try workflow.completedForms(of: template, filters: filters, listing: listing)
            }
            let source = NamingSource(LocalExportSource(store: context.store, locations: local.forms.map(\.location)))
            let destination = URL(fileURLWithPath: output)
            let writer = try ExportWriter(template: local.template, source: source, format: format, filters: local.filters,
                                          includeMedia: !noMedia)
            var sink = try FileExportSink(destination: destination)
            let meter = ExportMeter()
            do {
                try writer.write(to: &sink) { meter?.show($0) }
                try sink.commit()
            } catch {
                sink.discard()
                meter?.finish()
                throw error
            }
            meter?.finish()

            var skipped = local.unreadable.map { Summary.Skipped(form: $0.location.relativePath, reason: $0.reason) }
            skipped += source.failures.map { Summary.Skipped(form: $0.form, reason: $0.reason) }
            let progress = writer.progress
            let summary = Summary(output: destination.path, format: format.rawValue, template: local.template.id,
                                  templateVersion: local.template.version, formCount: progress.formsExported,
                                  mediaCount: progress.mediaFiles, bytes: progress.bytes, skipped: skipped,
                                  withoutLocationCount: format == .geojson ? progress.formsWithoutLocation : nil)
            if global.json {
                try Terminal.json(summary)
                return
            }
            for form in skipped { Terminal.warning("skipped \(form.form): \(form.reason)") }
            Terminal.out(Self.line(summary, format: format))
        }

        /// `Exported 12 forms and 3 media files (1.2 MB) to out.zip; skipped 1 unreadable form: …`.
        static func line(_ summary: Summary, format: ExportFormat) -> String {
            var text = "Exported \(Format.plural(summary.formCount, "form"))"
            if format == .zip { text += " and \(Format.plural(summary.mediaCount, "media file"))" }
            text += " (\(Format.bytes(Int64(clamping: summary.bytes)))) to \(DisplayText.escaped(summary.output))"
            if let left = summary.withoutLocationCount, left > 0 {
                text += "; left out \(Format.plural(left, "form")) without a location"
            }
            if !summary.skipped.isEmpty {
                text += "; skipped \(Format.plural(summary.skipped.count, "unreadable form")): "
                    + summary.skipped.map { DisplayText.escaped($0.form) }.joined(separator: ", ")
            }
            return text
        }
    }
}

/// A local source that remembers which forms could not be read, by their store path (the
/// writer only knows their position).
final class NamingSource: ExportSource {
    private let base: LocalExportSource
    private(set) var failures: [(form: String, reason: String)] = []

    init(_ base: LocalExportSource) { self.base = base }

    var count: Int { base.count }

    func load(_ index: Int) throws -> ExportedForm {
        do {
            return try base.load(index)
        } catch {
            failures.append((form: base.locations[index].relativePath, reason: error.localizedDescription))
            throw error
        }
    }
}

/// The export's progress on one stderr line, redrawn at most ten times a second; nil (silent)
/// when stderr is not a terminal.
final class ExportMeter {
    private var last = Date.distantPast
    private var drawn = false

    init?() {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
    }

    func show(_ progress: ExportProgress) {
        let now = Date()
        guard now.timeIntervalSince(last) >= 0.1 else { return }
        last = now
        let line = "\rexporting: \(progress.formsRead)/\(progress.formsTotal) forms read, "
            + "\(Format.plural(progress.mediaFiles, "media file")), \(Format.bytes(Int64(clamping: progress.bytes)))\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
