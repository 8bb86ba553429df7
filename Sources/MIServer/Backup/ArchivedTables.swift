import Foundation
import MIKit

/// The office's review and the audit log as `mi-server backup` archives them, read in the same
/// snapshot as the receipts and restored in the same transaction: `mi-backup/review.jsonl`
/// (every review event and send-back, oldest first) and `mi-backup/audit.jsonl` (every audit
/// row, then the head), one JSON object a line, engine-neutral like the receipts. Rows keep
/// their values exactly (the audit rows their sequence numbers and hashes), so
/// `mi-server audit verify` passes on the restored database as it did on the original.
enum ArchivedTables {
    static let reviewPath = "mi-backup/review.jsonl"
    static let auditPath = "mi-backup/audit.jsonl"

    struct ReviewEvent: Codable, Equatable {
        var submissionID: String
        var version: Int64
        var state: String
        var by: String
        var at: Double
        var note: String?
    }

    struct SendBack: Codable, Equatable {
        var submissionID: String
        var version: Int64
        var by: String
        var at: Double
        var note: String?
        /// The flags as the table keeps them: a JSON array of `ReviewFlag`.
        var flags: String
        var open: Bool
    }

    struct AuditRow: Codable, Equatable {
        var seq: Int64
        var at: Int64
        var actor: String
        var address: String
        var action: String
        var subject: String
        var detail: String
        var prevSHA256: String
        var sha256: String

        var record: AuditRecord {
            AuditRecord(seq: seq, atMilliseconds: at, actor: actor, address: address, action: action, subject: subject,
                        detail: detail, prevSHA256: prevSHA256, sha256: sha256)
        }
    }

    struct AuditHead: Codable, Equatable {
        var seq: Int64
        var sha256: String
    }

    /// One line of review.jsonl.
    struct ReviewLine: Codable {
        var event: ReviewEvent?
        var sendBack: SendBack?
    }

    /// One line of audit.jsonl.
    struct AuditLine: Codable {
        var row: AuditRow?
        var head: AuditHead?
    }

    struct Contents: Equatable {
        var events: [ReviewEvent] = []
        var sendBacks: [SendBack] = []
        var audit: [AuditRow] = []
        var head: AuditHead?
    }

    /// What the snapshot reads, in `contents(_:)`'s order.
    static let selects = [
        SQLText("SELECT submission_id, version, state, \"by\", \"at\", note FROM review_event ORDER BY seq"),
        SQLText("SELECT submission_id, version, \"by\", \"at\", note, CAST(flags AS TEXT) AS flags, \"open\" FROM send_back ORDER BY seq"),
        SQLText("SELECT seq, at, actor, address, action, subject, detail, prev_sha256, sha256 FROM audit_event ORDER BY seq"),
        SQLText("SELECT seq, sha256 FROM audit_head WHERE id = 1"),
    ]

    /// The rows `selects` read.
    static func contents(_ rows: [[SQLRow]]) throws -> Contents {
        guard rows.count == selects.count else { return Contents() }
        return Contents(
            events: try rows[0].map { row in
                ReviewEvent(submissionID: try row.text("submission_id"), version: try row.integer("version"), state: try row.text("state"),
                            by: try row.text("by"), at: try row.double("at"), note: try row.optional("note", row.text))
            },
            sendBacks: try rows[1].map { row in
                SendBack(submissionID: try row.text("submission_id"), version: try row.integer("version"), by: try row.text("by"),
                         at: try row.double("at"), note: try row.optional("note", row.text), flags: try row.text("flags"),
                         open: try row.bool("open"))
            },
            audit: try rows[2].map { row in
                AuditRow(seq: try row.integer("seq"), at: try row.integer("at"), actor: try row.text("actor"),
                         address: try row.text("address"), action: try row.text("action"), subject: try row.text("subject"),
                         detail: try row.text("detail"), prevSHA256: try row.text("prev_sha256"), sha256: try row.text("sha256"))
            },
            head: try rows[3].first.map { AuditHead(seq: try $0.integer("seq"), sha256: try $0.text("sha256")) })
    }

    // MARK: - The archive's files

    static func reviewFile(_ contents: Contents) throws -> Data {
        try lines(contents.events.map { ReviewLine(event: $0) } + contents.sendBacks.map { ReviewLine(sendBack: $0) })
    }

    static func auditFile(_ contents: Contents) throws -> Data {
        try lines(contents.audit.map { AuditLine(row: $0) } + (contents.head.map { [AuditLine(head: $0)] } ?? []))
    }

    private static func lines<Line: Encodable>(_ lines: [Line]) throws -> Data {
        var data = Data()
        let encoder = BackupArchive.encoder
        for line in lines {
            data.append(try encoder.encode(line))
            data.append(0x0A)
        }
        return data
    }

    /// review.jsonl read into `contents`; `BackupError.damaged` naming the line that is not one.
    static func readReview(_ data: Data, into contents: inout Contents) throws {
        for (number, line) in try decodeLines(ReviewLine.self, data, path: reviewPath) {
            switch (line.event, line.sendBack) {
            case (let event?, nil): contents.events.append(event)
            case (nil, let sendBack?): contents.sendBacks.append(sendBack)
            default: throw BackupError.damaged(path: reviewPath, problem: "line \(number) is neither a review event nor a send-back")
            }
        }
    }

    /// audit.jsonl read into `contents`, and its chain checked as `mi-server audit verify` checks
    /// it: each row's hash, each link to the row before, the head last.
    static func readAudit(_ data: Data, into contents: inout Contents) throws {
        for (number, line) in try decodeLines(AuditLine.self, data, path: auditPath) {
            switch (line.row, line.head) {
            case (let row?, nil) where contents.head == nil: contents.audit.append(row)
            case (nil, let head?) where contents.head == nil: contents.head = head
            default: throw BackupError.damaged(path: auditPath, problem: "line \(number) is not an audit row before the head")
            }
        }
        var chain = AuditChainCheck()
        for row in contents.audit {
            if case .broken(_, let reason)? = chain.check(row.record) { throw BackupError.damaged(path: auditPath, problem: reason) }
        }
        let head = contents.head ?? AuditHead(seq: chain.previous.seq, sha256: chain.previous.sha256)
        if case .broken(_, let reason) = chain.finish(head: (head.seq, head.sha256)) {
            throw BackupError.damaged(path: auditPath, problem: reason)
        }
    }

    private static func decodeLines<Line: Decodable>(_ type: Line.Type, _ data: Data, path: String) throws -> [(Int, Line)] {
        let decoder = BackupArchive.decoder
        return try data.split(separator: 0x0A).enumerated().map { index, line in
            do {
                return (index + 1, try decoder.decode(Line.self, from: Data(line)))
            } catch {
                throw BackupError.damaged(path: path, problem: "line \(index + 1) cannot be read")
            }
        }
    }

    // MARK: - Restoring

    /// The inserts that put `contents` back, after the submissions, in their transaction: the
    /// review rows (each submission's state on its row is its last event's), the audit rows and
    /// the head.
    static func restore(_ contents: Contents, dialect: SubmissionDialect) -> [SQLText] {
        var statements: [SQLText] = []
        var states: [String: String] = [:]
        for event in contents.events {
            statements.append(insert(into: "review_event", [
                ("submission_id", .text(event.submissionID)), ("version", .integer(event.version)), ("state", .text(event.state)),
                ("\"by\"", .text(event.by)), ("\"at\"", .double(event.at)), ("note", event.note.map { .text($0) } ?? .null),
            ], dialect: dialect))
            states[event.submissionID] = event.state
        }
        for sendBack in contents.sendBacks {
            statements.append(insert(into: "send_back", [
                ("submission_id", .text(sendBack.submissionID)), ("version", .integer(sendBack.version)), ("\"by\"", .text(sendBack.by)),
                ("\"at\"", .double(sendBack.at)), ("note", sendBack.note.map { .text($0) } ?? .null), ("flags", .text(sendBack.flags)),
                ("\"open\"", .bool(sendBack.open)),
            ], dialect: dialect))
        }
        for (id, state) in states.sorted(by: { $0.key < $1.key }) {
            var update = SQLText("UPDATE submission SET review_state = ")
            update.bind(state)
            update.append(" WHERE id = ")
            update.bind(id)
            statements.append(update)
        }
        for row in contents.audit {
            statements.append(insert(into: "audit_event", [
                ("seq", .integer(row.seq)), ("at", .integer(row.at)), ("actor", .text(row.actor)), ("address", .text(row.address)),
                ("action", .text(row.action)), ("subject", .text(row.subject)), ("detail", .text(row.detail)),
                ("prev_sha256", .text(row.prevSHA256)), ("sha256", .text(row.sha256)),
            ], dialect: dialect))
        }
        if let head = contents.head {
            var update = SQLText("UPDATE audit_head SET seq = ")
            update.bind(head.seq)
            update.append(", sha256 = ")
            update.bind(head.sha256)
            update.append(" WHERE id = 1")
            statements.append(update)
        }
        return statements
    }

    private static func insert(into table: String, _ values: [(column: String, value: SQLValue)], dialect: SubmissionDialect) -> SQLText {
        SubmissionSQL.insert(into: table, expressions: values.map { column, value in
            (column, column == "flags" ? dialect.json(value) : SQLText(binding: value))
        })
    }
}
