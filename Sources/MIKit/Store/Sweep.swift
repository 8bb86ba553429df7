import Foundation

/// What the sweep at the start of a command did (or, dry, would do).
public struct SweepResult: Sendable {
    /// Incomplete forms past expiry.
    public var expired: [ListedForm] = []
    /// Forms whose files could not be read: reported, never deleted.
    public var unreadable: [UnreadableForm] = []
}

extension Store {
    /// When an incomplete form expires: `expiryDays` after it was created (or sent back).
    public static func expiryDate(of summary: FormSummary, expiryDays: Int) -> Date {
        summary.expiryStart.addingTimeInterval(Double(expiryDays) * 86_400)
    }

    /// Deletes incomplete forms created more than `expiryDays` ago, the leftovers of processes
    /// killed mid-write, and folders left empty. With `dryRun` it only reports the expired forms.
    /// The caller holds the lock.
    public func sweep(expiryDays: Int, now: Date, dryRun: Bool = false) throws -> SweepResult {
        var result = SweepResult()
        if !dryRun { removeLeftovers() }
        let listing = try list(.incomplete)
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
        for area in Area.allCases {
            for user in users(in: area) { try removeIfEmpty(areaFolder(area).appendingPathComponent(user)) }
        }
        return result
    }

    /// Temporary folders a killed process left in the user folders (half-created forms,
    /// half-deleted ones). Only called under the lock, so no live process owns them.
    private func removeLeftovers() {
        for area in Area.allCases {
            for user in users(in: area) {
                let folder = areaFolder(area).appendingPathComponent(user)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names where name.hasPrefix(DurableFile.temporaryPrefix) {
                    try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
                }
            }
        }
    }

    /// Temporary files a killed process left inside a form's folder (a half-copied attachment,
    /// a half-written form.json). The caller holds the lock.
    public func removeLeftovers(in location: FormLocation) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: location.folder.path)) ?? []
        for name in names where name.hasPrefix(DurableFile.temporaryPrefix) {
            try? FileManager.default.removeItem(at: location.folder.appendingPathComponent(name))
        }
    }
}
