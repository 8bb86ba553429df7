import Foundation
import MIKit

/// What a command works with: the configuration, the acting user and the workflow over the
/// store. Every command that touches the store goes through `run`, which takes the store's
/// lock and first sweeps expired forms.
struct Context {
    let options: GlobalOptions
    let configuration: Configuration
    let workflow: Workflow
    let session: Session
    var store: Store { workflow.store }
    var actor: Actor { workflow.actor }

    /// How long to wait for another mi holding the store's lock (`MI_LOCK_TIMEOUT`, seconds).
    static var lockTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["MI_LOCK_TIMEOUT"].flatMap(TimeInterval.init) ?? 30
    }

    static func loadConfiguration(_ options: GlobalOptions) throws -> Configuration {
        let url = try ConfigurationLoader.locate(
            explicitPath: options.config, environment: ProcessInfo.processInfo.environment,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        return try ConfigurationLoader.load(from: url)
    }

    /// The context of a command run by a logged-in user whose role is in `roles`.
    init(_ options: GlobalOptions, roles: Set<Actor.Role>) throws {
        self.options = options
        configuration = try Self.loadConfiguration(options)
        session = try Identity.current(configuration: configuration)
        let actor = session.actor
        guard roles.contains(actor.role) else {
            throw SessionError.wrongRole(allowed: roles, user: actor.name, role: actor.role)
        }
        workflow = Workflow(configuration: configuration, actor: actor)
    }

    /// The context of a command for technicians only.
    static func technician(_ options: GlobalOptions) throws -> Context { try Context(options, roles: [.technician]) }
    /// The context of a command for foremen only.
    static func foreman(_ options: GlobalOptions) throws -> Context { try Context(options, roles: [.foreman]) }
    /// The context of a command for anyone logged in.
    static func anyone(_ options: GlobalOptions) throws -> Context { try Context(options, roles: [.technician, .foreman]) }

    /// Runs `body` holding the store's lock, after sweeping expired forms (and telling a
    /// technician of reminders due).
    func run<T>(sweep: Bool = true, reminders: Bool = true, _ body: (Workflow) throws -> T) throws -> T {
        try runListing(sweep: sweep, reminders: reminders) { workflow, _ in try body(workflow) }
    }

    /// `run`, handing `body` the sweep's listing of every form (nil without the sweep), so a
    /// listing command opens each form.json once.
    func runListing<T>(sweep: Bool = true, reminders: Bool = true, _ body: (Workflow, StoreListing?) throws -> T) throws -> T {
        try Self.withLock(workflow, sweep: sweep) { listing in
            if sweep, reminders, actor.role == .technician { ReminderNotes.showDue(workflow) }
            return try body(workflow, listing)
        }
    }

    /// Runs `body` holding the store's lock, first sweeping expired forms (saying what went);
    /// `body` gets the sweep's listing of the store.
    static func withLock<T>(_ workflow: Workflow, sweep: Bool = true, _ body: (StoreListing?) throws -> T) throws -> T {
        let lock = try workflow.store.lock(timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        let listing = sweep ? try Self.sweep(workflow) : nil
        return try body(listing)
    }

    /// Runs `body` holding the store's lock, without the sweep (for steps of a longer command).
    func locked<T>(_ body: (Workflow) throws -> T) throws -> T {
        try run(sweep: false, body)
    }

    /// Deletes expired incomplete forms and says in one line what went; returns the listing of
    /// the store the sweep read. The caller holds the lock.
    @discardableResult
    static func sweep(_ workflow: Workflow) throws -> StoreListing? {
        let days = workflow.configuration.expiryDays
        let result = try workflow.store.sweep(expiryDays: days, now: workflow.now())
        var temporary = 0
        for repair in result.repaired {
            switch repair {
            case .temporaryRemoved: temporary += 1
            case .unlistedMediaRemoved(let path): Terminal.note("removed \(path): a media file no form lists (an attach that did not finish)")
            case .submitCompleted(let from, let to): Terminal.note("completed the submit of \(from) that was cut short: now \(to)")
            case .statusCorrected(let path, let status): Terminal.note("\(path) is \(status.rawValue): its recorded status now says so")
            }
        }
        if temporary > 0 { Terminal.note("removed \(Format.plural(temporary, "temporary file")) left by interrupted commands") }
        guard !result.expired.isEmpty else { return result.listing }
        let names = result.expired.map(\.location.relativePath).joined(separator: ", ")
        Terminal.note("deleted \(Format.plural(result.expired.count, "incomplete form")) older than \(days) days: \(names)")
        return result.listing
    }

    /// Tells about forms that could not be read (they are skipped, never deleted).
    func report(_ unreadable: [UnreadableForm]) {
        for form in unreadable { Terminal.warning("skipped \(form.location.relativePath): \(form.reason)") }
    }
}
