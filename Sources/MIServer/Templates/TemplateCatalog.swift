import Foundation
import Logging
import MIKit
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// The templates `Server.TemplatesDirectory` holds, validated with the configured key names.
///
/// Several files may hold versions of one template (the office publishes `<id>.v<n>.json`
/// beside the older ones): the newest version is the one served, the others are kept and
/// listed. Two files with the same id and version are an error naming both; the first by
/// name is served.
///
/// The folder is re-read whenever its listing (names, sizes, modification times, inodes)
/// changed since the last look, which is checked on every request: an administrator drops a
/// file in and the next request serves it. A file that does not validate is logged with the
/// reason and not served; it never takes the server down.
final class TemplateCatalog: Sendable {
    struct Entry: Sendable, Equatable {
        var id: String
        var title: String
        var version: Int
        /// Lowercase hex SHA-256 of `data`.
        var sha256: String
        /// The file's exact bytes, as served.
        var data: Data
        var fileName: String
        /// The file's modification time, from the listing the catalog reads anyway.
        var modified: Date
        /// The image files the template's questions show (`Template.files`), served from
        /// `<folder>/<id>/<name>`.
        var files: [String]
        /// `Template.consentDigest`: what an uploaded form's consent acceptance must be for.
        var consentDigest: String?

        /// The entry of `template`, read from (or written to) `fileName` as `data`.
        init(template: Template, data: Data, fileName: String, modified: Date) {
            id = template.id
            title = template.title
            version = template.version
            sha256 = FileDigest.sha256(of: data)
            self.data = data
            self.fileName = fileName
            self.modified = modified
            files = template.files
            consentDigest = template.consentDigest
        }
    }

    /// A file a template shows, read for one request.
    struct File: Sendable {
        var name: String
        var data: Data
        /// Lowercase hex SHA-256 of `data`.
        var sha256: String
        var contentType: String
    }

    /// Why `file(id:name:)` has nothing to serve.
    enum FileLookup: Error, Equatable {
        /// No version of the template names a file of that name (or no such template).
        case notNamed
        /// The template names it, but the server's folder does not have it (or cannot read it).
        case missing(path: String)
    }

    /// Files larger than this are not templates.
    static let maximumFileBytes = 8 << 20

    private struct FileStamp: Equatable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64

        var date: Date { Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9) }
    }

    private struct State {
        /// The listing the entries were read from; nil forces a re-read.
        var stamps: [String: FileStamp]? = nil
        var entries: [Entry] = []
        /// The last problem logged per file, so a re-read does not log it again.
        var problems: [String: String] = [:]
        /// The image files last logged missing, per template file, for the same reason.
        var missingFiles: [String: [String]] = [:]
    }

    /// File times have the kernel's coarse clock (a few ms): a file changed again within that
    /// tick, keeping its size, would look unchanged. Listings this fresh are re-read next time.
    static let settleSeconds = 2

    let folder: URL
    let coding: TemplateCoding
    let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(folder: URL, keys: TemplateKeys, logger: Logger) {
        self.folder = folder
        self.coding = TemplateCoding(keys: keys)
        self.logger = logger
    }

    /// The newest version of each valid template, sorted by id; re-reads the folder first if
    /// it changed.
    func templates() -> [Entry] {
        Self.newest(of: allVersions())
    }

    /// The newest version of template `id`.
    func template(id: String) -> Entry? { versions(id: id).first }

    /// Every version of template `id`, newest first.
    func versions(id: String) -> [Entry] {
        allVersions().filter { $0.id == id }.sorted { $0.version > $1.version }
    }

    /// Version `version` of template `id`.
    func template(id: String, version: Int) -> Entry? {
        allVersions().first { $0.id == id && $0.version == version }
    }

    /// Every valid file, sorted by id then version; re-reads the folder first if it changed.
    func allVersions() -> [Entry] {
        state.withLockedValue { state in
            let stamps = listing()
            if stamps != state.stamps {
                let entries = load(stamps, problems: &state.problems, missingFiles: &state.missingFiles)
                if entries != state.entries || state.stamps == nil {
                    let served = Self.newest(of: entries)
                    let older = entries.count > served.count ? " (and \(entries.count - served.count) older version(s))" : ""
                    logger.info("serving \(served.count) template(s) from \(folder.path): \(served.map { "\($0.id) v\($0.version)" }.joined(separator: ", "))\(older)")
                }
                state.entries = entries
                let newest = stamps.values.map(\.seconds).max() ?? 0
                let settled = Int(Date().timeIntervalSince1970) - newest > Self.settleSeconds
                state.stamps = settled ? stamps : nil
            }
            return state.entries
        }
    }

    /// The entry of each id with the highest version, sorted by id.
    private static func newest(of entries: [Entry]) -> [Entry] {
        var byID: [String: Entry] = [:]
        for entry in entries where entry.version > byID[entry.id]?.version ?? Int.min {
            byID[entry.id] = entry
        }
        return byID.values.sorted { $0.id < $1.id }
    }

    /// `*.json` files (not hidden, not temporary) with their stamps.
    private func listing() -> [String: FileStamp] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var stamps: [String: FileStamp] = [:]
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            var info = stat()
            guard stat(folder.appendingPathComponent(name).path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            stamps[name] = FileStamp(size: Int64(info.st_size), seconds: info.st_mtim.tv_sec,
                                     nanoseconds: info.st_mtim.tv_nsec, inode: UInt64(info.st_ino))
        }
        return stamps
    }

    private func load(_ stamps: [String: FileStamp], problems: inout [String: String],
                      missingFiles: inout [String: [String]]) -> [Entry] {
        problems = problems.filter { stamps[$0.key] != nil }
        missingFiles = missingFiles.filter { stamps[$0.key] != nil }
        if stamps.isEmpty {
            if FileManager.default.fileExists(atPath: folder.path) {
                logger.warning("no templates (*.json) in \(folder.path) — copy the templates there (Server.TemplatesDirectory)")
            } else {
                logger.warning("the templates folder \(folder.path) does not exist — create it or fix Server.TemplatesDirectory")
            }
            return []
        }
        var byVersion: [String: Entry] = [:]
        for name in stamps.keys.sorted() {
            let url = folder.appendingPathComponent(name)
            do {
                if let size = stamps[name]?.size, size > Self.maximumFileBytes {
                    throw TemplateError(template: name, problems: [.init(message: "the file is larger than \(Self.maximumFileBytes >> 20) MiB")])
                }
                let data = try Data(contentsOf: url)
                let template = try coding.decode(data, source: name)
                let key = "\(template.id)\u{0}\(template.version)"
                if let other = byVersion[key] {
                    throw TemplateError(template: name, problems: [.init(field: coding.keys[.version], message: "version \(template.version) of \"\(template.id)\" is also in \(other.fileName) — give each version its own number, or each template its own id")])
                }
                byVersion[key] = Entry(template: template, data: data, fileName: name,
                                       modified: stamps[name].map(\.date) ?? Date())
                problems[name] = nil
                logMissingFiles(of: template, in: name, logged: &missingFiles)
            } catch {
                let problem = Self.describe(error)
                if problems[name] != problem {
                    logger.error("template file not served: \(url.path): \(problem)")
                    problems[name] = problem
                }
            }
        }
        return byVersion.values.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
    }

    /// The folder holding template `id`'s files.
    func filesFolder(id: String) -> URL { folder.appendingPathComponent(id, isDirectory: true) }

    /// Files larger than this are not a question's picture.
    static let maximumImageBytes = 8 << 20

    /// File `name` of template `id`, when some version of the template names it. Only named
    /// files are served, so nothing else in the folder (another template's JSON, a file
    /// reached through `..`) can be fetched by guessing its name. Read on every request: an
    /// administrator replacing a picture is served at once.
    func file(id: String, name: String) -> Result<File, FileLookup> {
        guard SafeName.problem(id) == nil, SafeName.problem(name) == nil,
              versions(id: id).contains(where: { $0.files.contains(name) }) else { return .failure(.notNamed) }
        let url = filesFolder(id: id).appendingPathComponent(name)
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= Self.maximumImageBytes,
              let data = try? Data(contentsOf: url) else { return .failure(.missing(path: url.path)) }
        return .success(File(name: name, data: data, sha256: FileDigest.sha256(of: data),
                             contentType: Self.contentType(ofImage: name)))
    }

    /// The media type of a question's picture, by its extension (`Question.imageExtensions`).
    static func contentType(ofImage name: String) -> String {
        (name as NSString).pathExtension.lowercased() == "png" ? "image/png" : "image/jpeg"
    }

    /// A template whose pictures are missing is still served: its questions can be answered
    /// without them, and withdrawing a whole questionnaire from every technician over one
    /// picture would surprise an administrator more than the warning here does. Clients name
    /// the missing file when they sync.
    private func logMissingFiles(of template: Template, in name: String, logged: inout [String: [String]]) {
        let missing = template.files.filter { file in
            var info = stat()
            return stat(filesFolder(id: template.id).appendingPathComponent(file).path, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG
        }
        guard logged[name] ?? [] != missing else { return }
        logged[name] = missing
        if !missing.isEmpty {
            logger.warning("template \(template.id) v\(template.version) (\(name)) is served without its picture(s) \(missing.joined(separator: ", ")): copy them to \(filesFolder(id: template.id).path)/")
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    }
}
