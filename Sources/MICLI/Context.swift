import Foundation
import MIKit

/// What a command works with: the configuration, the acting user and the workflow over the
/// store. Every command that touches the store goes through `run`, which takes the store's
/// lock and first sweeps expired forms.
struct Context {
    let options: GlobalOptions
    let configuration: Configuration
    let workflow: Workflow
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

    /// The context of a command run by a technician (or, with `roles`, whoever may run it).
    init(_ options: GlobalOptions, roles: Set<Actor.Role> = [.technician]) throws {
        self.options = options
        configuration = try Self.loadConfiguration(options)
        let actor = try Identity.current(options: options, configuration: configuration)
        guard roles.contains(actor.role) else {
            throw WorkflowError("this command is for \(roles.map(\.rawValue).sorted().joined(separator: " or ")); \(actor.name) is a \(actor.role.rawValue)")
        }
        workflow = Workflow(configuration: configuration, actor: actor)
    }

    /// Runs `body` holding the store's lock, after sweeping expired forms.
    func run<T>(sweep: Bool = true, _ body: (Workflow) throws -> T) throws -> T {
        let lock = try store.lock(timeout: Self.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        if sweep { try self.sweep() }
        return try body(workflow)
    }

    /// Runs `body` holding the store's lock, without the sweep (for steps of a longer command).
    func locked<T>(_ body: (Workflow) throws -> T) throws -> T {
        try run(sweep: false, body)
    }

    /// Deletes expired incomplete forms and says in one line what went. The caller holds the lock.
    func sweep() throws {
        let result = try store.sweep(expiryDays: configuration.expiryDays, now: workflow.now())
        guard !result.expired.isEmpty else { return }
        let names = result.expired.map(\.location.relativePath).joined(separator: ", ")
        Terminal.note("deleted \(Format.plural(result.expired.count, "incomplete form")) older than \(configuration.expiryDays) days: \(names)")
    }

    /// Tells about forms that could not be read (they are skipped, never deleted).
    func report(_ unreadable: [UnreadableForm]) {
        for form in unreadable { Terminal.note("skipped \(form.location.relativePath): \(form.reason)") }
    }
}
