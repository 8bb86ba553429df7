import Foundation
import MIKit
@testable import MIServer
import TestSupport

/// The submissions stored in the databases that main's code made before the repositories shared
/// one core and one naming (`Resources/upgrade/`): the same forms, rebuilt here, are what the
/// upgraded database must still serve.
enum UpgradeFixture {
    /// Four submissions: two technicians, a once-per-user template, a simulated form, days apart.
    static func submissions() throws -> [(Receipt, Form)] {
        var once = TemplateFixture.tiny(id: "once")
        once.oncePerUser = true
        let sample = try TemplateFixture.sampleTemplate()
        let rows: [(id: String, user: String, name: String, template: Template, note: String?, day: Int, simulated: Bool)] = [
            ("0a000000-0000-4000-8000-000000000001", "ana", "north-pump", sample, "Válvula rota", 0, false),
            ("0a000000-0000-4000-8000-000000000002", "bob", "Hall 10", sample, "leak at the flange", 1, false),
            ("0a000000-0000-4000-8000-000000000003", "ana", "Hall 9", once, nil, 2, false),
            ("0a000000-0000-4000-8000-000000000004", "carla", "made-up", sample, "simulated answers", 2, true),
        ]
        return try rows.map { row in
            let id = try FormID(row.id).orThrow("fixture id")
            let submitted = TestClock.start.addingTimeInterval(TimeInterval(row.day * 86_400))
            var form = Form(id: id, name: row.name, user: row.user, template: row.template, createdAt: submitted)
            form.status = .completed
            form.submittedAt = submitted
            form.userDisplayName = row.user.capitalized
            if let note = row.note { form.answers["notes"] = Answer(value: .text(note)) }
            if row.simulated { form.record(AuditEvent(at: submitted, by: row.user, action: .simulated)) }
            let receipt = Receipt(id: id, user: row.user, formName: row.name, uploadedBy: row.user,
                                  receivedAt: submitted.addingTimeInterval(60),
                                  parts: [Receipt.Part(name: "form.json", filename: "form.json", size: 100 + Int64(row.day),
                                                       sha256: String(repeating: "\(row.day)", count: 64))])
            return (receipt, form)
        }
    }
}

private extension Optional {
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw UpgradeFixtureError(description: "bad \(what)") }
        return self
    }
}

struct UpgradeFixtureError: Error, CustomStringConvertible {
    var description: String
}
