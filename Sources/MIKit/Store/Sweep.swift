import Foundation

/// What the sweep at the start of a command did (or, dry, would do).
public struct SweepResult: Sendable {
    /// Incomplete forms past expiry.
    public var expired: [ListedForm] = []
    /// Forms whose files could not be read: reported, never deleted.
    public var unreadable: [UnreadableForm] = []
    /// What was made right after killed processes.
    public var repaired: [SweepRepair] = []
    /// Every form of both areas as the sweep left them (read in its one pass over the store,
    /// the expired forms taken out); nil for a dry run. Valid while the caller holds the lock.
    public var listing: StoreListing?
}

/// The forms of both areas read in one pass over the store: what `Store.list` returns for any
/// area and user, without opening a form.json again.
public struct StoreListing: Sendable {
    /// Per area, the forms of every user, by user then name.
    public var areas: [Store.Area: FormListing] = [:]

    public init() {}

    /// The forms of `user` (or of everyone) in `area`, as `Store.list(area, user:)` gives them;
    /// a user name `Store.list` refuses is refused here too.
    public func list(_ area: Store.Area, user: String? = nil) throws -> FormListing {
        let all = areas[area] ?? FormListing()
        guard let user else { return all }
        let checked = try SafeName.check(user, as: "user name")
        var listing = FormListing()
        listing.forms = all.forms.filter { $0.location.user == checked }
        listing.unreadable = all.unreadable.filter { $0.location.user == checked }
        return listing
    }
}

extension Store {
    /// When an incomplete form expires: `expiryDays` after it was created (or sent back).
    public static func expiryDate(of summary: FormSummary, expiryDays: Int) -> Date {
        summary.expiryStart.addingTimeInterval(Double(expiryDays) * 86_400)
    }

    /// Deletes incomplete forms created more than `expiryDays` ago and folders left empty, and
    /// repairs what a process killed mid-step left (see `repairLeftovers`). With `dryRun` it
    /// only reports the expired forms. The caller holds the lock.
    public func sweep(expiryDays: Int, now: Date, dryRun: Bool = false) throws -> SweepResult {
        var result = SweepResult()
        var listing: FormListing
        if dryRun {
            listing = try list(.incomplete)
        } else {
            // The repair pass reads every form's summary anyway: its listing of the incomplete
            // forms (after the repairs) serves the expiry check, so no summary is read twice.
            let repair = repairLeftovers()
            result.repaired = repair.repairs
            result.listing = repair.listing
            listing = repair.listing.areas[.incomplete] ?? FormListing()
        }
        result.unreadable = listing.unreadable
        // A listing reads only each file's summary; an expired form is read whole before it
        // goes, so a damaged file is reported and kept, never deleted.
        for form in listing.forms where Store.expiryDate(of: form.summary, expiryDays: expiryDays) < now {
            do {
                _ = try load(form.location)
                result.expired.append(form)
            } catch {
                result.unreadable.append(UnreadableForm(location: form.location, reason: error.localizedDescription))
            }
        }
        if dryRun { return result }
        for form in result.expired { try remove(form.location) }
        // An expired form that cannot be read whole stays, listed by its summary as `list` would.
        let removed = Set(result.expired.map(\.location))
        result.listing?.areas[.incomplete]?.forms.removeAll { removed.contains($0.location) }
        for area in Area.allCases {
            for user in users(in: area) { try removeIfEmpty(areaFolder(area).appendingPathComponent(user)) }
        }
        return result
    }

    /// What a process killed mid-step leaves, made right. The caller holds the lock, so no
    /// other mi process is between steps; a temporary file is still removed only when the
    /// process named in it is dead (a writer outside the lock may be alive).
    ///
    /// - temporary files and folders of dead writers, in the user folders (half-created or
    ///   half-deleted forms), in the form folders (half-copied media, half-written form.json),
    ///   in `Errors/` (messages), in `.templates/` (the template cache and its pictures) and in
    ///   `.once/` (forms of once-per-user templates the server holds);
    /// - media files in a form folder that form.json does not list: an attach copies and
    ///   renames the file, then records it in form.json, so such a file is an attach that was
    ///   never acknowledged (or a detach whose file removal was cut short);
    /// - a form whose form.json disagrees with its area. A form in `Users/` that says
    ///   `completed` with `submitted` as its last event (or `renamed` right after it) was
    ///   killed between the save and the move of a submit, which had checked everything: the
    ///   submit is completed by moving it to `CompletedMIs/`. Any other disagreement keeps
    ///   the form where it is (the folder decides, as in `load`) and rewrites its status.
    /// Returns the repairs and, as a by-product, the listing of both areas as they are after
    /// the repairs (what `list(area)` would return for each).
    func repairLeftovers() -> (repairs: [SweepRepair], listing: StoreListing) {
        var repairs: [SweepRepair] = []
        var listing = StoreListing()
        // Messages, the template cache and the once-per-user records are written through temporary files too.
        for (folder, path) in [(errorsFolder, "Errors"), (templatesFolder, ".templates"), (onceFolder, ".once")] {
            repairs += DurableFile.removeLeftovers(in: folder).map { .temporaryRemoved(path: "\(path)/\($0)") }
        }
        // A template's pictures are written through temporary files in its own folder.
        for name in DurableFile.directoryNames(templatesFolder) where !name.hasPrefix(".") && !name.hasSuffix(".json") {
            repairs += DurableFile.removeLeftovers(in: templatesFolder.appendingPathComponent(name))
                .map { .temporaryRemoved(path: ".templates/\(name)/\($0)") }
        }
        for area in Area.allCases {
            var areaListing = FormListing()
            defer { listing.areas[area] = areaListing }
            var locations: [FormLocation] = []
            for user in users(in: area) {
                let userPath = areaPath(area) + "/" + user
                let names = DurableFile.directoryNames(atPath: userPath)
                repairs += DurableFile.removeLeftovers(in: URL(fileURLWithPath: userPath, isDirectory: true), among: names)
                    .map { .temporaryRemoved(path: "\(area.rawValue)/\(user)/\($0)") }
                for name in names.sorted() where !name.hasPrefix(".") && SafeName.problem(name) == nil {
                    locations.append(FormLocation(area: area, user: user, name: name, path: userPath + "/" + name))
                }
            }
            // Reading is most of the work and changes nothing: both cores read, then the
            // repairs are made one by one, in order.
            let contents = readConcurrently(locations)
            for (location, content) in zip(locations, contents) {
                let (formRepairs, summary) = repair(location, names: content.names, summary: content.summary)
                repairs += formRepairs
                // A completed submit moved the form to the completed area, listed there when
                // the loop reaches it (the later area in `allCases`).
                if formRepairs.contains(where: { if case .submitCompleted = $0 { return true } else { return false } }) {
                    continue
                }
                switch summary {
                case .success(var summary):
                    summary.status = area.status
                    summary.user = location.user
                    summary.name = location.name
                    areaListing.forms.append(ListedForm(location: location, summary: summary))
                case .failure(let error):
                    areaListing.unreadable.append(UnreadableForm(location: location, reason: error.localizedDescription))
                }
            }
        }
        return (repairs, listing)
    }

    /// The repairs of one form folder (see `repairLeftovers`), and its summary or why it cannot
    /// be read; an unreadable form is left alone.
    private func repair(_ location: FormLocation, names: [String], summary read: Result<FormSummary, any Error>)
        -> ([SweepRepair], Result<FormSummary, any Error>) {
        var repairs = DurableFile.removeLeftovers(in: location.folder, among: names)
            .map { SweepRepair.temporaryRemoved(path: "\(location.relativePath)/\($0)") }
        let summary: FormSummary
        switch read {
        case .success(let value): summary = value
        case .failure: return (repairs, read)
        }
        let files = names.filter { !$0.hasPrefix(".") && $0 != Self.formFileName }
        // The summary counts the listed media: only a folder whose count differs is read whole.
        if files.count != summary.media, let form = try? load(location) {
            let listed = Set(form.answers.values.flatMap(\.media))
            for name in files where !listed.contains(name) {
                if (try? FileManager.default.removeItem(at: location.folder.appendingPathComponent(name))) != nil {
                    repairs.append(.unlistedMediaRemoved(path: "\(location.relativePath)/\(name)"))
                }
            }
            try? DurableFile.syncFolder(location.folder)
        }
        if summary.status != location.area.status, let repaired = try? repairStatus(location) {
            repairs.append(repaired)
        }
        return (repairs, .success(summary))
    }

    /// The names in each form's folder and its summary (or why it cannot be read), read on
    /// every core; nothing is changed.
    private func readConcurrently(_ locations: [FormLocation]) -> [(names: [String], summary: Result<FormSummary, any Error>)] {
        let slots = Slots<(names: [String], summary: Result<FormSummary, any Error>)>(count: locations.count)
        WorkPieces.run(WorkPieces.ranges(of: locations.count, pieces: WorkPieces.cores * 8)) { _, range in
            for index in range {
                let location = locations[index]
                let names = DurableFile.directoryNames(atPath: location.path)
                slots.set(index, (names, Result { try readSummary(location) }))
            }
        }
        return slots.values()
    }

    private func repairStatus(_ location: FormLocation) throws -> SweepRepair {
        let data = try Data(contentsOf: location.formFile)
        let written = try FormFile.decode(data)
        let events = written.audit.map(\.action)
        let submitCutShort = location.area == .incomplete && written.status == .completed
            && (events.last == .submitted || events.suffix(2) == [.submitted, .renamed])
        if submitCutShort {
            var name = (try? SafeName.check(written.name, as: "form name")) ?? location.name
            let base = name
            var counter = 2
            while FileManager.default.fileExists(atPath: try self.location(.completed, user: location.user, name: name).folder.path) {
                name = "\(base)-\(counter)"
                counter += 1
            }
            var form = try load(location)
            form.status = .completed
            form.name = name
            try save(form, at: location)
            let destination = try move(location, to: .completed, user: location.user, name: name)
            return .submitCompleted(from: location.relativePath, to: destination.relativePath)
        }
        try save(try load(location), at: location)
        return .statusCorrected(path: location.relativePath, status: location.area.status)
    }

    /// Removes the temporary files of dead writers inside a form's folder (a half-copied
    /// attachment, a half-written form.json). The caller holds the lock.
    public func removeLeftovers(in location: FormLocation) {
        DurableFile.removeLeftovers(in: location.folder)
    }
}

/// One thing the sweep made right after a killed process; paths are below the store's root.
public enum SweepRepair: Sendable, Hashable {
    /// A dead writer's temporary file or folder was removed.
    case temporaryRemoved(path: String)
    /// A media file form.json does not list was removed.
    case unlistedMediaRemoved(path: String)
    /// A submit cut short between its save and its move was completed.
    case submitCompleted(from: String, to: String)
    /// A form's recorded status was rewritten to match its area.
    case statusCorrected(path: String, status: Form.Status)
}

/// Results written by several threads, each to its own index, and read once all are done.
public final class Slots<Value>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Value>
    private var filled: [Bool]

    public init(count: Int) {
        buffer = .allocate(capacity: count)
        filled = Array(repeating: false, count: count)
    }

    deinit { buffer.deallocate() }

    public func set(_ index: Int, _ value: Value) {
        (buffer.baseAddress! + index).initialize(to: value)
    }

    /// Every value, moved out; call once, after every index was set.
    public func values() -> [Value] {
        let values = (0..<buffer.count).map { (buffer.baseAddress! + $0).move() }
        return values
    }
}
