import Foundation

/// The completed forms of one template in the local store, as statistics and exports read them.
public struct LocalForms: Sendable {
    /// The template the forms are laid out by (see `Workflow.completedForms`).
    public var template: Template
    /// The filters as applied: a technician's are narrowed to their own forms.
    public var filters: StatisticsFilters
    /// The forms the filters include, by their summaries, oldest submission first.
    public var forms: [ListedForm]
    /// Forms whose form.json cannot be read (skipped, never changed).
    public var unreadable: [UnreadableForm]
}

extension Workflow {
    /// The completed forms of template `templateID` that the actor may see (a technician their
    /// own, a foreman everyone's) and `filters` include, chosen by their summaries. `listing`
    /// is the sweep's listing of the store (read again when nil).
    ///
    /// The layout template is the cached template, unless `filters.version` asks for another
    /// version: then the copy kept in the newest such form. A template no longer in the cache is
    /// laid out by the newest copy its forms keep; with neither, `StoreError.templateNotFound`.
    public func completedForms(of templateID: String, filters: StatisticsFilters, listing: StoreListing? = nil) throws -> LocalForms {
        try SafeName.check(templateID, as: "template id")
        let scoped = try filters.scoped(to: actor)
        let all = try listing?.list(.completed, user: scoped.user) ?? store.list(.completed, user: scoped.user)
        let forms = all.forms
            .filter { $0.summary.templateID == templateID && scoped.includes($0.summary) }
            .sorted { ($0.summary.submittedAt ?? $0.summary.updatedAt, $0.location.user, $0.location.name)
                < ($1.summary.submittedAt ?? $1.summary.updatedAt, $1.location.user, $1.location.name) }
        var unreadable = all.unreadable
        let cached: Template?
        do {
            cached = try templates.template(id: templateID)
        } catch let error as StoreError {
            guard case .templateNotFound = error else { throw error }
            cached = nil
        } catch {
            cached = nil
        }
        if let cached, filters.version == nil || filters.version == cached.version {
            return LocalForms(template: cached, filters: scoped, forms: forms, unreadable: unreadable)
        }
        // The newest form's own copy of the template lays the statistics out.
        for form in forms.reversed().sorted(by: { $0.summary.templateVersion > $1.summary.templateVersion }) {
            do {
                let copy = try store.load(form.location).template
                return LocalForms(template: copy, filters: scoped, forms: forms, unreadable: unreadable)
            } catch {
                unreadable.append(UnreadableForm(location: form.location, reason: error.localizedDescription))
            }
        }
        if let cached { return LocalForms(template: cached, filters: scoped, forms: forms, unreadable: unreadable) }
        throw StoreError.templateNotFound(templateID)
    }

    /// The statistics of the local completed forms of `templateID` (see `completedForms`);
    /// forms that cannot be read are returned apart and not counted.
    public func statistics(of templateID: String, filters: StatisticsFilters,
                           listing: StoreListing? = nil) throws -> (statistics: TemplateStatistics, unreadable: [UnreadableForm]) {
        let local = try completedForms(of: templateID, filters: filters, listing: listing)
        let empty = try StatisticsBuilder(template: local.template, filters: local.filters)
        // Counted on every core, each piece of the forms by its own builder as it is read (so
        // memory stays flat), the pieces merged in order: the same figures as one by one.
        let pieces = store.readConcurrently(local.forms.map(\.location), into: (builder: empty, unreadable: [UnreadableForm]())) { piece, location, read in
            switch read {
            case .success(let form): piece.builder.add(form)
            case .failure(let error): piece.unreadable.append(UnreadableForm(location: location, reason: error.localizedDescription))
            }
        }
        var builder = empty
        var unreadable = local.unreadable
        for piece in pieces {
            builder.merge(piece.builder)
            unreadable += piece.unreadable
        }
        return (builder.result(), unreadable)
    }
}
