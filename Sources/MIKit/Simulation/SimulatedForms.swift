import Foundation

extension Form {
    /// Whether `mi simulate` made the answers up (its audit trail says so).
    public var isSimulated: Bool { audit.contains { $0.action == .simulated } }
}

/// `mi simulate`'s request: how many forms of which template, from which seed.
public struct SimulationRequest: Sendable {
    /// The most forms one run makes.
    public static let maximumCount = 10_000
    /// How far back simulated forms are spread, so per-day charts have something to show.
    public static let spreadDays = 30

    public var templateID: String
    public var count: Int
    public var seed: UInt64
    /// Submit each form, through `submit`'s own checks and move.
    public var submit: Bool
    /// Where the forms' locations cluster (within 3 km); nil for a place drawn from the seed.
    public var near: Geopoint?

    public init(templateID: String, count: Int, seed: UInt64, submit: Bool, near: Geopoint? = nil) {
        self.templateID = templateID
        self.count = count
        self.seed = seed
        self.submit = submit
        self.near = near
    }

    /// Refuses a count outside 1…10,000 (checked before anything else, even logging in).
    public static func check(count: Int) throws {
        guard (1...maximumCount).contains(count) else { throw SimulationError.countOutOfRange(count) }
    }

    /// `sim-<seed>-<n>`, n from 1.
    public func name(_ number: Int) -> String { "sim-\(seed)-\(number)" }

    /// When each form was started and (if submitted) submitted, oldest first: spread over the last
    /// 30 days, or — for forms left incomplete — within the expiry period, so the next sweep does
    /// not delete them. A generator of its own keeps the answers independent of `now`.
    func times(now: Date, expiryDays: Int) -> [(created: Date, submitted: Date?)] {
        var generator = SeededGenerator(seed: seed ^ 0x5EED_7111_E5A5_D0C5)
        let day = 86_400.0
        let window = submit ? Double(Self.spreadDays) * day : max(min(Double(Self.spreadDays), Double(expiryDays)) * day - 3_600, 0)
        let ages = (0..<count).map { _ in generator.unit() * window }.sorted(by: >)
        return ages.map { age in
            let end = now.addingTimeInterval(-age.rounded())
            guard submit else { return (end, nil) }
            let minutes = Double(generator.int(in: 10...90))
            return (end.addingTimeInterval(-minutes * 60), end)
        }
    }
}

/// A simulation that cannot run; nothing was created.
public enum SimulationError: ClassifiedError, Sendable, Equatable {
    /// The count is outside 1…10,000.
    case countOutOfRange(Int)
    /// A form `sim-<seed>-<n>` already exists (the same seed was simulated before).
    case nameTaken(String)

    public var failureClass: FailureClass { .usage }

    public var code: String {
        switch self {
        case .countOutOfRange: return "simulate-count-out-of-range"
        case .nameTaken: return "simulate-name-taken"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .countOutOfRange(let count):
            return "--count must be from 1 to \(SimulationRequest.maximumCount.formatted()), got \(count)"
        case .nameTaken(let name):
            return "you already have a form named \(name) — this seed was simulated before; choose another --seed or delete those forms"
        }
    }
}

extension Workflow {
    /// Creates the request's forms as `mi new` and `mi answer` would (and submits them as `mi
    /// submit` would), with answers from a `Simulator` seeded by the request. Checks the count and
    /// every name first, so a refused run creates nothing. `created` is told of each form.
    public func simulate(_ request: SimulationRequest, displayName: String? = nil,
                         created: (Int, FormLocation, Form) -> Void = { _, _, _ in }) throws -> [Form] {
        try SimulationRequest.check(count: request.count)
        _ = try templates.template(id: request.templateID)
        for number in 1...request.count where try nameTaken(request.name(number), user: actor.name) {
            throw SimulationError.nameTaken(request.name(number))
        }
        var simulator = Simulator(seed: request.seed)
        var forms: [Form] = []
        forms.reserveCapacity(request.count)
        for (offset, time) in request.times(now: now(), expiryDays: configuration.expiryDays).enumerated() {
            let startedAt = time.created
            let starting = Workflow(configuration: configuration, actor: actor, now: { startedAt })
            var form = try starting.newForm(templateID: request.templateID, name: request.name(offset + 1), displayName: displayName)
            // The simulating user stands in for the respondent; the form says it is simulated.
            form.acceptConsent(by: actor.name, at: startedAt)
            try simulator.fill(&form, by: actor.name, at: startedAt, near: request.near)
            var location = try store.create(form)
            if let submittedAt = time.submitted {
                let submitting = Workflow(configuration: configuration, actor: actor, now: { submittedAt })
                (location, form) = try submitting.submit(form.name)
            }
            created(offset + 1, location, form)
            forms.append(form)
        }
        return forms
    }
}

/// Forms made by `mi simulate` are for trying statistics and exports: mi-server refuses them
/// (unless set to accept them), so `mi upload --all` leaves them out and `mi purge
/// --simulated` removes them.
extension Workflow {
    /// The simulated forms among `locations` (each form read whole, since only its history says
    /// it was simulated); forms that cannot be read are not among them.
    public func simulated(among locations: [FormLocation]) -> [FormLocation] {
        let pieces = store.readConcurrently(locations, into: [FormLocation]()) { found, location, read in
            if case .success(let form) = read, form.isSimulated { found.append(location) }
        }
        return pieces.flatMap { $0 }
    }

    /// The simulated forms this user may remove, incomplete and completed: a technician's own,
    /// a foreman's of every technician. With `dryRun` nothing is removed. The caller holds the
    /// store's lock.
    public func purgeSimulated(dryRun: Bool) throws -> (removed: [ListedForm], unreadable: [UnreadableForm]) {
        let user = actor.role == .foreman ? nil : actor.name
        var listing = FormListing()
        for area in Store.Area.allCases {
            let part = try store.list(area, user: user)
            listing.forms += part.forms
            listing.unreadable += part.unreadable
        }
        let simulated = Set(simulated(among: listing.forms.map(\.location)))
        let removed = listing.forms.filter { simulated.contains($0.location) }
        if !dryRun {
            for form in removed { try store.remove(form.location) }
        }
        return (removed, listing.unreadable)
    }
}
