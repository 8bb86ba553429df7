import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folder hierarchy under `Documents`:
///
///     Users/<user>/<form>/form.json + media          incomplete forms
///     CompletedMIs/<user>/<form>/form.json + media   submitted, waiting for the foreman
///     Errors/<user>.json                             messages for <user>, shown at their next login
///     .templates/<id>.json                           the template cache
///     .once/<user>.json                              forms of once-per-user templates the server holds
///
/// Callers hold the store's lock (`lock()`) around every operation that writes.
public struct Store: Sendable {
    public let root: URL

    public enum Area: String, Sendable, CaseIterable, Codable {
        case incomplete = "Users"
        case completed = "CompletedMIs"

        public var status: Form.Status { self == .incomplete ? .incomplete : .completed }
    }

    public static let formFileName = "form.json"

    public init(root: URL) { self.root = root.standardizedFileURL }

    public var templatesFolder: URL { root.appendingPathComponent(".templates") }
    public var errorsFolder: URL { root.appendingPathComponent("Errors") }

    public func areaFolder(_ area: Area) -> URL { root.appendingPathComponent(area.rawValue) }

    public func userFolder(_ area: Area, user: String) throws -> URL {
        areaFolder(area).appendingPathComponent(try SafeName.check(user, as: "user name"))
    }

    public func location(_ area: Area, user: String, name: String) throws -> FormLocation {
        let folder = try userFolder(area, user: user)
            .appendingPathComponent(try SafeName.check(name, as: "form name"), isDirectory: true)
        return FormLocation(area: area, user: user, name: name, folder: folder)
    }

    /// Takes the store's exclusive lock, creating the root when it is missing.
    public func lock(timeout: TimeInterval = 30) throws -> StoreLock {
        try DurableFile.makeFolder(root)
        return try StoreLock(root: root, timeout: timeout)
    }

    // MARK: - Forms

    public func load(_ location: FormLocation) throws -> Form {
        try load(location) { try FormFile.decode($0) }.form
    }

    /// `load`, reading through `reader`: for many forms at once (statistics, exports), which
    /// share their template copies.
    public func load(_ location: FormLocation, reader: inout FormReader) throws -> Form {
        try load(location) { try reader.decode($0) }.form
    }

    /// `load`, with the bytes of form.json as they are on disk (the export's `jsonl` writes them).
    public func loadWithFile(_ location: FormLocation) throws -> (form: Form, file: Data) {
        try load(location) { try FormFile.decode($0) }
    }

    private func load(_ location: FormLocation, decode: (Data) throws -> Form) throws -> (form: Form, file: Data) {
        let url = location.formFile
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreError.unreadableForm(path: url.path, reason: (error as NSError).localizedDescription)
        }
        do {
            var form = try decode(data)
            // Where the folder is decides status, owner and name: a form whose move was cut
            // short is whatever its folder says.
            form.status = location.area.status
            form.user = location.user
            form.name = location.name
            return (form, data)
        } catch let error as FormFileError {
            throw StoreError.unreadableForm(path: url.path, reason: error.reason)
        }
    }

    public func save(_ form: Form, at location: FormLocation) throws {
        try DurableFile.write(try FormFile.encode(form), to: location.formFile)
    }

    /// Creates the form's folder with its form.json (and `files`, its media) in one step: all
    /// are prepared under a temporary name and renamed into place, never over an existing form.
    /// A new empty folder inside the store, on its filesystem, for files to be moved into a form
    /// by `create(_:files:)` (downloads in progress); the caller removes it.
    public func makeStagingFolder() throws -> URL {
        try DurableFile.makeFolder(root)
        let folder = root.appendingPathComponent(DurableFile.temporaryName(), isDirectory: true)
        guard mkdir(folder.path, 0o700) == 0 else { throw DurableFile.error("create folder", folder) }
        return folder
    }

    /// Creates `form` among the incomplete forms with `files` moved into its folder (each a file
    /// on the store's filesystem, from `makeStagingFolder`, renamed to its media name), all in
    /// one rename of the folder.
    public func create(_ form: Form, files: [(name: String, file: URL)] = []) throws -> FormLocation {
        let location = try self.location(.incomplete, user: form.user, name: form.name)
        let parent = location.folder.deletingLastPathComponent()
        try DurableFile.makeFolder(parent)
        let staging = parent.appendingPathComponent(DurableFile.temporaryName())
        guard mkdir(staging.path, 0o755) == 0 else { throw DurableFile.error("create folder", staging) }
        do {
            for file in files {
                try DurableFile.moveNoReplace(file.file, to: staging.appendingPathComponent(try SafeName.check(file.name, as: "media name")))
            }
            try DurableFile.write(try FormFile.encode(form), to: staging.appendingPathComponent(Self.formFileName))
            try DurableFile.moveNoReplace(staging, to: location.folder)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        return location
    }

    /// Moves a form's whole folder in one rename; never replaces an existing form.
    public func move(_ location: FormLocation, to area: Area, user: String, name: String) throws -> FormLocation {
        let destination = try self.location(area, user: user, name: name)
        try DurableFile.makeFolder(destination.folder.deletingLastPathComponent())
        try DurableFile.moveNoReplace(location.folder, to: destination.folder)
        return destination
    }

    /// Deletes a form with its media: first renamed out of sight in one step, then removed.
    public func remove(_ location: FormLocation) throws {
        let parent = location.folder.deletingLastPathComponent()
        let trash = parent.appendingPathComponent(DurableFile.temporaryName())
        try DurableFile.moveNoReplace(location.folder, to: trash)
        try? FileManager.default.removeItem(at: trash)
        try removeIfEmpty(parent)
    }

    /// Every user with a folder in `area`.
    public func users(in area: Area) -> [String] {
        entries(of: areaFolder(area)).filter { SafeName.problem($0) == nil }
    }

    /// The forms of `user` (or of everyone) in `area`, read from their summaries; the forms
    /// that cannot be read are returned apart, never deleted.
    public func list(_ area: Area, user: String? = nil) throws -> FormListing {
        var listing = FormListing()
        let users = try user.map { [try SafeName.check($0, as: "user name")] } ?? self.users(in: area)
        for user in users {
            let folder = areaPath(area) + "/" + user
            for name in entries(atPath: folder) {
                guard SafeName.problem(name) == nil else { continue }
                let location = FormLocation(area: area, user: user, name: name, path: folder + "/" + name)
                do {
                    var summary = try readSummary(location)
                    summary.status = area.status
                    summary.user = user
                    summary.name = name
                    listing.forms.append(ListedForm(location: location, summary: summary))
                } catch let error as StoreError {
                    listing.unreadable.append(UnreadableForm(location: location, reason: error.localizedDescription))
                }
            }
        }
        return listing
    }

    /// The summary of a form.json: its header keys, wherever they stand in the file (see
    /// `FormFile.decodeSummary`); the rest of the file is skipped, not decoded.
    public func readSummary(_ location: FormLocation) throws -> FormSummary {
        let path = location.formFilePath
        do {
            return try FormFile.decodeSummary(try DurableFile.contents(atPath: path))
        } catch let error as FormFileError {
            throw StoreError.unreadableForm(path: path, reason: error.reason)
        } catch {
            throw StoreError.unreadableForm(path: path, reason: error.localizedDescription)
        }
    }

    /// Every name in `folder` except hidden and temporary ones, sorted; empty when the folder is missing.
    func entries(of folder: URL) -> [String] {
        entries(atPath: folder.path)
    }

    func entries(atPath folder: String) -> [String] {
        DurableFile.directoryNames(atPath: folder).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The path of an area's folder (listings build their paths from it).
    func areaPath(_ area: Area) -> String { root.path + "/" + area.rawValue }

    func removeIfEmpty(_ folder: URL) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), names.isEmpty else { return }
        if rmdir(folder.path) == 0 { try DurableFile.syncFolder(folder.deletingLastPathComponent()) }
    }
}

/// Where a form lives: area, user and folder name.
public struct FormLocation: Sendable, Equatable, Hashable {
    public var area: Store.Area
    public var user: String
    public var name: String
    /// The form's folder as a path: a listing makes one location per form, and a path costs
    /// a concatenation where a URL is parsed.
    public var path: String
    public var folder: URL { URL(fileURLWithPath: path, isDirectory: true) }
    public var formFile: URL { URL(fileURLWithPath: formFilePath, isDirectory: false) }
    var formFilePath: String { path + "/" + Store.formFileName }
    /// `Users/ana/pump-2026…` — the path below the store's root, for messages.
    public var relativePath: String { "\(area.rawValue)/\(user)/\(name)" }

    public init(area: Store.Area, user: String, name: String, folder: URL) {
        self.init(area: area, user: user, name: name, path: folder.path)
    }

    init(area: Store.Area, user: String, name: String, path: String) {
        self.area = area
        self.user = user
        self.name = name
        self.path = path
    }
}

public struct ListedForm: Sendable {
    public var location: FormLocation
    public var summary: FormSummary
}

public struct UnreadableForm: Sendable {
    public var location: FormLocation
    public var reason: String
}

public struct FormListing: Sendable {
    public var forms: [ListedForm] = []
    public var unreadable: [UnreadableForm] = []
    public init() {}
}
