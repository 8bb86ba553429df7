import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The forms an export covers, in the order they are written (submission order), and where
/// each one's files are: the CLI's local completed forms or the server's stored submissions.
public protocol ExportSource {
    /// How many forms there are.
    var count: Int { get }
    /// Form number `index`, read now (an export of 100,000 forms holds one at a time). A form
    /// that cannot be read throws; the export goes on without it and lists it in `skipped`.
    func load(_ index: Int) throws -> ExportedForm
}

/// One form as a source hands it over.
public struct ExportedForm: Sendable {
    /// form.json as stored (the `jsonl` format writes it as it is).
    public var json: Data
    public var form: Form
    /// The path of each media file at hand, by media name; a listed file that is missing has
    /// no entry (it counts in `AttachmentsExpected`, not `AttachmentsPresent`).
    public var mediaPaths: [String: String]
    /// Where the office's review of it stands (a stored submission's; nil for a local form).
    public var reviewState: ReviewState?
    /// The stored version (a stored submission's; nil for a local form): 1, or a later one that
    /// superseded `version - 1` after the office sent the form back.
    public var version: Int?

    public init(json: Data, form: Form, mediaPaths: [String: String], reviewState: ReviewState? = nil, version: Int? = nil) {
        self.json = json
        self.form = form
        self.mediaPaths = mediaPaths
        self.reviewState = reviewState
        self.version = version
    }

    /// Where its media go in a zip: `media/<form id>/`, and for a later version in an export
    /// of every version `media/<form id>/v<n>/`, beside the earlier versions' files.
    func mediaFolder(everyVersion: Bool) -> String {
        let id = form.id.description
        guard everyVersion, let version, version > 1 else { return "media/\(id)/" }
        return "media/\(id)/v\(version)/"
    }
}

/// Where an export's bytes go, in order (a file for `mi export`).
public protocol ExportSink {
    mutating func write(_ bytes: [UInt8]) throws
}

/// An export's output format.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// `<template>.csv`, one `<template>-<repeat>.csv` per repeat (`RepeatCSV`) and
    /// `media/<form id>/<file>` in a zip.
    case zip
    /// One form.json per line (JSON Lines), for scripts; no media. A form with repeats has its
    /// `answers` nested (`NestedAnswers`).
    case jsonl
    /// A GeoJSON FeatureCollection: one Point per form that has a location, and one per repeat
    /// instance with a location answer (`GeoJSON`); no media.
    case geojson

    /// The format named `name` (`zip`, `jsonl` or `geojson`).
    public init(parsing name: String) throws(ExportError) {
        guard let format = ExportFormat(rawValue: name.lowercased()) else { throw ExportError.unknownFormat(name) }
        self = format
    }

    /// The MIME type the server answers with.
    public var contentType: String {
        switch self {
        case .zip: return "application/zip"
        case .jsonl: return "application/x-ndjson"
        case .geojson: return "application/geo+json"
        }
    }
    /// The file name extension.
    public var fileExtension: String { rawValue }
}

/// What an export has done so far.
public struct ExportProgress: Sendable, Equatable {
    /// Forms read of the source's count (included or not).
    public var formsRead = 0
    public var formsTotal = 0
    /// Forms written (those the filters kept).
    public var formsExported = 0
    /// Media files written.
    public var mediaFiles = 0
    /// Bytes of output made.
    public var bytes: UInt64 = 0
    /// GeoJSON: forms the filters kept but left out because they have no location.
    public var formsWithoutLocation = 0
}

/// Writes an export — a zip of `<template>.csv`, then each repeat's `<template>-<repeat>.csv`,
/// then `media/<form id>/<file>` per form, or JSON Lines, or GeoJSON — in chunks, front to back, with memory that does not grow with the number of
/// forms: each form is read, written and let go; the zip's central directory, the repeats' CSVs
/// and the list of media to copy wait in unlinked temporary files.
///
/// The work is pulled a chunk at a time with `next()`, so the server can run each step off
/// its event loop and send the chunk before it makes the next (back-pressure: a slow client
/// slows the export, nothing piles up), while `mi export` pushes every chunk into a file
/// with `write(to:)`. Both use this one writer. Not for use from several threads at once.
public final class ExportWriter {
    /// The chunk size `next()` aims at.
    public static let chunkBytes = 1 << 20
    /// Bytes of a media file read per step.
    static let readBytes = 256 * 1024

    public let layout: CSVLayout
    public let format: ExportFormat
    /// The forms that could not be read, with why (they are not in the export).
    public private(set) var skipped: [(form: String, reason: String)] = []
    public private(set) var progress = ExportProgress()

    private let source: any ExportSource
    private let filters: StatisticsFilters
    private let includeMedia: Bool
    private var zip: ZipWriter?
    private var lines: [UInt8] = []
    /// GeoJSON: whether a Feature has been written (the next one needs a comma before it).
    private var wroteFeature = false
    private let mediaList: SpoolFile?
    private var state: State = .start
    private var openMedia: OpenMedia?
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// The layout template's logic, for a template with repeats (their instances).
    private let logic: FormLogic?
    /// Zip: each repeat's CSV (`layout.repeats`), written while the main CSV is, copied into the
    /// zip after it.
    private let repeatFiles: [SpoolFile]
    /// The position of each repeat's table in `layout.repeats`, by repeat id.
    private let repeatPosition: [String: Int]
    /// JSONL: the logic of the forms' own template versions, by version.
    private var formLogic: [Int: FormLogic] = [:]
    private let now: Date

    private enum State { case start, forms(Int), repeats(Int, open: Bool), media, directory, done }

    private struct OpenMedia {
        var descriptor: Int32
    }

    /// An export of `source`'s forms that `filters` keep (its `groupBy` is ignored), laid out
    /// by `template` (the newest version). `now` stamps the zip's entries. With `reviewStates`
    /// the CSV ends with each form's review state (`ExportedForm.reviewState`); with
    /// `everyVersion` (the source lists every stored version of each form, not only the
    /// current one) with its `Version` and `Supersedes`, and a later version's media go to
    /// `media/<form id>/v<n>/`.
    public convenience init(template: Template, source: any ExportSource, format: ExportFormat, filters: StatisticsFilters = StatisticsFilters(),
                includeMedia: Bool = true, now: Date = Date(), temporaryFolder: String? = nil, reviewStates: Bool = false,
                everyVersion: Bool = false) throws(ExportError) {
        try self.init(template: template, source: source, format: format, filters: filters, includeMedia: includeMedia,
                      now: now, temporaryFolder: temporaryFolder, limits: .standard, reviewStates: reviewStates,
                      everyVersion: everyVersion)
    }

    init(template: Template, source: any ExportSource, format: ExportFormat, filters: StatisticsFilters, includeMedia: Bool,
         now: Date, temporaryFolder: String?, limits: ZipWriter.Limits, reviewStates: Bool = false,
         everyVersion: Bool = false) throws(ExportError) {
        layout = CSVLayout(template: template, reviewStates: reviewStates, versions: everyVersion)
        self.format = format
        self.source = source
        self.filters = filters
        self.includeMedia = includeMedia && format == .zip
        self.now = now
        logic = template.hasRepeats ? FormLogic(template: template) : nil
        repeatPosition = Dictionary(layout.repeats.enumerated().map { ($1.group.id, $0) }, uniquingKeysWith: { first, _ in first })
        if format == .zip {
            zip = try ZipWriter(modified: now, temporaryFolder: temporaryFolder, limits: limits)
            mediaList = self.includeMedia ? try SpoolFile(folder: temporaryFolder) : nil
            var files: [SpoolFile] = []
            for table in layout.repeats {
                let file = try SpoolFile(folder: temporaryFolder)
                var bytes = CSVText.byteOrderMark
                CSVText.append(table.header, to: &bytes)
                try file.append(bytes)
                files.append(file)
            }
            repeatFiles = files
        } else {
            mediaList = nil
            repeatFiles = []
        }
        readBuffer = .allocate(byteCount: Self.readBytes, alignment: 16)
        progress.formsTotal = source.count
    }

    deinit {
        if let media = openMedia { close(media.descriptor) }
        readBuffer.deallocate()
    }

    /// The CSV's name in the zip: `<template id>.csv`.
    public var csvName: String { layout.template.id + ".csv" }

    /// The next chunk of the export (about `chunkBytes`), or nil when it is complete.
    public func next() throws(ExportError) -> [UInt8]? {
        while pendingCount < Self.chunkBytes {
            if case .done = state { break }
            try step()
        }
        let chunk = takePending()
        progress.bytes += UInt64(chunk.count)
        return chunk.isEmpty ? nil : chunk
    }

    /// The whole export into `sink`, chunk by chunk; `progress` is called after each chunk.
    public func write(to sink: inout some ExportSink, progress report: (ExportProgress) -> Void = { _ in }) throws {
        while let chunk = try next() {
            try sink.write(chunk)
            report(progress)
        }
    }

    private var pendingCount: Int { zip?.output.count ?? lines.count }

    private func takePending() -> [UInt8] {
        if zip != nil { return zip!.takeOutput() }
        defer { lines = [] }
        return lines
    }

    /// One bounded piece of work: the CSV header, one form, one read of a media file, or a
    /// piece of the central directory.
    private func step() throws(ExportError) {
        switch state {
        case .start:
            if zip != nil {
                zip!.begin(name: csvName)
                var bytes = CSVText.byteOrderMark
                CSVText.append(layout.header, to: &bytes)
                zip!.write(bytes)
            }
            if format == .geojson { lines += GeoJSON.head }
            state = .forms(0)
        case .forms(let index):
            guard index < source.count else {
                if zip != nil {
                    try zip!.end()
                    state = .repeats(0, open: false)
                } else {
                    if format == .geojson { lines += GeoJSON.tail }
                    state = .done
                }
                return
            }
            try writeForm(index)
            state = .forms(index + 1)
        case .repeats(let index, let open):
            guard index < repeatFiles.count else {
                state = includeMedia ? .media : .directory
                return
            }
            guard open else {
                zip!.begin(name: layout.repeats[index].fileName, expectedSize: repeatFiles[index].size)
                state = .repeats(index, open: true)
                return
            }
            let bytes = try repeatFiles[index].read(upTo: Self.readBytes)
            if bytes.isEmpty {
                try zip!.end()
                state = .repeats(index + 1, open: false)
            } else {
                zip!.write(bytes)
            }
        case .media:
            try copyMedia()
        case .directory:
            if try zip!.finish(maximumBytes: Self.chunkBytes) { state = .done }
        case .done:
            break
        }
    }

    private func writeForm(_ index: Int) throws(ExportError) {
        progress.formsRead += 1
        let item: ExportedForm
        do {
            item = try source.load(index)
        } catch {
            skipped.append((form: "form \(index + 1) of \(source.count)", reason: error.localizedDescription))
            return
        }
        let form = item.form
        guard form.template.id == layout.template.id, filters.includes(form) else { return }
        switch format {
        case .jsonl:
            progress.formsExported += 1
            guard NestedAnswers.applies(to: form) else {
                Self.appendLine(item.json, to: &lines)
                return
            }
            let own = formLogic[form.template.version] ?? FormLogic(template: form.template)
            formLogic[form.template.version] = own
            Self.appendLine(NestedAnswers.json(item.json, form: form, logic: own, now: now), to: &lines)
        case .geojson:
            let instances = logic.map { FormInstances(form, logic: $0, now: now).instances } ?? []
            let features = GeoJSON.features(for: form, layout: layout, instances: instances)
            guard !features.isEmpty else {
                progress.formsWithoutLocation += 1
                return
            }
            progress.formsExported += 1
            for feature in features {
                lines += Array((wroteFeature ? ",\n" : "\n").utf8)
                lines += feature
                wroteFeature = true
            }
        case .zip:
            progress.formsExported += 1
            let listed = Self.mediaNames(of: form)
            let present = listed.filter { item.mediaPaths[$0] != nil }
            var bytes: [UInt8] = []
            CSVText.append(layout.row(for: form, attachmentsPresent: present.count, reviewState: item.reviewState,
                                      version: item.version), to: &bytes)
            zip!.write(bytes)
            if let logic {
                for instance in FormInstances(form, logic: logic, now: now).instances {
                    guard let index = repeatPosition[instance.group.id] else { continue }
                    try repeatFiles[index].append(CSVText.record(layout.repeats[index].row(for: form, instance: instance)))
                }
            }
            if let mediaList {
                let folder = item.mediaFolder(everyVersion: layout.versions)
                for name in present {
                    guard let path = item.mediaPaths[name] else { continue }
                    var record: [UInt8] = []
                    for field in [folder + name, path] {
                        let utf8 = Array(field.utf8)
                        record.le32(UInt32(utf8.count))
                        record += utf8
                    }
                    try mediaList.append(record)
                }
            }
        }
    }

    /// Copies the next piece of the open media file, or opens the next one on the list.
    private func copyMedia() throws(ExportError) {
        guard let media = openMedia else {
            guard let list = mediaList, let name = try Self.readField(list), let path = try Self.readField(list) else {
                state = .directory
                return
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            // A file removed since the form was read is left out; its form's row already
            // counted it present, which was true then.
            guard descriptor >= 0 else { return }
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? UInt64(max(info.st_size, 0)) : nil
            zip!.begin(name: name, expectedSize: size)
            openMedia = OpenMedia(descriptor: descriptor)
            return
        }
        var count: Int
        repeat { count = read(media.descriptor, readBuffer.baseAddress, Self.readBytes) } while count < 0 && errno == EINTR
        if count > 0 {
            zip!.write(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            return
        }
        close(media.descriptor)
        openMedia = nil
        // A read error ends the entry where it stands: its CRC and size describe what was
        // written, so the archive stays valid.
        try zip!.end()
        progress.mediaFiles += 1
    }

    private static func readField(_ list: SpoolFile) throws(ExportError) -> String? {
        guard let length = try list.read(exactly: 4) else { return nil }
        let count = Int(length[0]) | Int(length[1]) << 8 | Int(length[2]) << 16 | Int(length[3]) << 24
        guard let bytes = try list.read(exactly: count) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The form's media names in the order of its template's questions, then any others.
    static func mediaNames(of form: Form) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        for question in form.template.questions {
            for name in form.answers[question.id]?.media ?? [] where seen.insert(name).inserted { names.append(name) }
        }
        for id in form.answers.keys.sorted() {
            for name in form.answers[id]?.media ?? [] where seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// form.json on one line: a raw line break can only stand between JSON tokens, where it
    /// is whitespace, so it becomes a space.
    static func appendLine(_ json: Data, to out: inout [UInt8]) {
        var end = json.endIndex
        while end > json.startIndex, [0x0A, 0x0D, 0x20, 0x09].contains(json[json.index(before: end)]) { end = json.index(before: end) }
        out.reserveCapacity(out.count + json.count + 1)
        for byte in json[json.startIndex..<end] { out.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte) }
        out.append(0x0A)
    }
}

/// `mi export`'s sink: a temporary file beside the output, renamed over it only when the
/// export is complete (`commit()`), so the output path never holds half an export.
public struct FileExportSink: ExportSink {
    public let destination: URL
    private let temporary: URL
    private let descriptor: Int32
    private var committed = false

    public init(destination: URL) throws(ExportError) {
        self.destination = destination
        temporary = destination.deletingLastPathComponent().appendingPathComponent(DurableFile.temporaryName())
        descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ExportError.output(path: destination.path, reason: String(cString: strerror(errno))) }
    }

    public mutating func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ExportError.output(path: destination.path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// Syncs the file and renames it over the destination.
    public mutating func commit() throws(ExportError) {
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw ExportError.output(path: destination.path, reason: reason)
        }
        committed = true
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw ExportError.output(path: destination.path, reason: reason)
        }
        try? DurableFile.syncFolder(destination.deletingLastPathComponent())
    }

    /// Removes the temporary file of an export that did not complete.
    public mutating func discard() {
        guard !committed else { return }
        close(descriptor)
        unlink(temporary.path)
        committed = true
    }
}
