import Foundation
import MIKit

/// What an audit row says happened. The raw values are stored and served as they are; a new
/// kind is a new case, never a changed spelling (old rows keep theirs).
public enum AuditAction: String, Codable, Sendable, CaseIterable {
    case signIn = "sign-in"
    case signInFailed = "sign-in-failed"
    case submissionView = "submission-view"
    case mediaDownload = "media-download"
    case export
    case upload
    case uploadRefused = "upload-refused"
    case templatePublish = "template-publish"
    case reviewState = "review-state"
    case sendBack = "send-back"
}

/// One event to append: who did what to which subject, from where. `seq`, the time and the
/// hashes are the log's to give.
public struct AuditEntry: Sendable, Equatable {
    public var action: AuditAction
    /// The signed-in user; for a failed sign-in the name that was tried; "" when unknown.
    public var actor: String
    /// The client's address as `ClientAddress` resolves it.
    public var address: String
    /// What the action was on: a submission id, a template id, a file, a sign-in path.
    public var subject: String
    /// A short sentence (outcome, reason, file name).
    public var detail: String

    /// Text longer than this is cut (with "…") before it is stored and hashed.
    static let maxSubject = 200
    static let maxDetail = 500

    public init(action: AuditAction, actor: String, address: String, subject: String, detail: String = "") {
        self.action = action
        self.actor = Self.cut(actor, to: Self.maxSubject)
        self.address = Self.cut(address, to: 100)
        self.subject = Self.cut(subject, to: Self.maxSubject)
        self.detail = Self.cut(detail, to: Self.maxDetail)
    }

    static func cut(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

/// One stored row of the audit log, as `GET /api/v1/audit` serves it.
public struct AuditRecord: Codable, Sendable, Equatable {
    public var seq: Int64
    /// Milliseconds since 1970 (UTC), as stored and hashed.
    public var atMilliseconds: Int64
    public var actor: String
    public var address: String
    /// The action's raw value (`AuditAction`); kept as text so a row of a newer server still reads.
    public var action: String
    public var subject: String
    public var detail: String
    public var prevSHA256: String
    public var sha256: String

    /// The hash before the first row.
    public static let genesis = String(repeating: "0", count: 64)

    public var at: Date { Date(timeIntervalSince1970: Double(atMilliseconds) / 1000) }

    /// The row that follows `previous` (`seq`, hash) for `entry` at `date`, its hash computed.
    static func make(_ entry: AuditEntry, at date: Date, after previous: (seq: Int64, sha256: String)) -> AuditRecord {
        var event = AuditRecord(seq: previous.seq + 1, atMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)),
                               actor: entry.actor, address: entry.address, action: entry.action.rawValue,
                               subject: entry.subject, detail: entry.detail, prevSHA256: previous.sha256, sha256: "")
        event.sha256 = event.computedSHA256
        return event
    }

    /// The canonical encoding the hash covers: a version tag, then every field but `sha256` as
    /// its UTF-8 byte count, a colon and its bytes, each followed by a newline. Lengths make it
    /// unambiguous whatever the text holds (newlines, colons, any Unicode).
    var canonical: Data {
        var data = Data("mi-audit-1\n".utf8)
        for field in [String(seq), String(atMilliseconds), actor, address, action, subject, detail, prevSHA256] {
            let bytes = Data(field.utf8)
            data.append(Data("\(bytes.count):".utf8))
            data.append(bytes)
            data.append(0x0A)
        }
        return data
    }

    var computedSHA256: String { FileDigest.sha256(of: canonical) }

    enum CodingKeys: String, CodingKey {
        case seq, at, actor, address, action, subject, detail
        case prevSHA256 = "prevSha256"
        case sha256
    }

    public init(seq: Int64, atMilliseconds: Int64, actor: String, address: String, action: String, subject: String,
                detail: String, prevSHA256: String, sha256: String) {
        self.seq = seq
        self.atMilliseconds = atMilliseconds
        self.actor = actor
        self.address = address
        self.action = action
        self.subject = subject
        self.detail = detail
        self.prevSHA256 = prevSHA256
        self.sha256 = sha256
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int64.self, forKey: .seq)
        let text = try container.decode(String.self, forKey: .at)
        guard let date = try? Date(text, strategy: Self.timeFormat) else {
            throw DecodingError.dataCorruptedError(forKey: .at, in: container, debugDescription: "not an ISO 8601 time: \(text)")
        }
        atMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        actor = try container.decode(String.self, forKey: .actor)
        address = try container.decode(String.self, forKey: .address)
        action = try container.decode(String.self, forKey: .action)
        subject = try container.decode(String.self, forKey: .subject)
        detail = try container.decode(String.self, forKey: .detail)
        prevSHA256 = try container.decode(String.self, forKey: .prevSHA256)
        sha256 = try container.decode(String.self, forKey: .sha256)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(atText, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(address, forKey: .address)
        try container.encode(action, forKey: .action)
        try container.encode(subject, forKey: .subject)
        try container.encode(detail, forKey: .detail)
        try container.encode(prevSHA256, forKey: .prevSHA256)
        try container.encode(sha256, forKey: .sha256)
    }

    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2026-11-26T14:03:07.125Z`.
    var atText: String { at.formatted(Self.timeFormat) }
}

/// A page of the log, newest first.
public struct AuditPage: Codable, Sendable, Equatable {
    public var events: [AuditRecord]
    /// The `cursor` of the next (older) page; nil on the last.
    public var nextCursor: String?
}

/// What `audit verify` found.
public enum AuditVerification: Sendable, Equatable {
    /// Every row from 1 to `last` is present, unchanged and chained; `last` is 0 for an empty log.
    case intact(rows: Int64, lastSHA256: String)
    /// The first row (by `seq`) that is changed, missing or out of the chain, and why.
    case broken(seq: Int64, reason: String)
}

/// The chain check both engines run over their rows, read in `seq` order up to the head.
struct AuditChainCheck {
    private(set) var previous: (seq: Int64, sha256: String) = (0, AuditRecord.genesis)

    /// Nil while the rows are good; else the verdict for the first bad one.
    mutating func check(_ row: AuditRecord) -> AuditVerification? {
        let expected = previous.seq + 1
        if row.seq != expected {
            return .broken(seq: expected, reason: "row \(expected) is missing (the next row is \(row.seq))")
        }
        if row.prevSHA256 != previous.sha256 {
            return .broken(seq: row.seq, reason: "row \(row.seq) does not chain to row \(previous.seq): its prev_sha256 is not that row's sha256")
        }
        if row.computedSHA256 != row.sha256 {
            return .broken(seq: row.seq, reason: "row \(row.seq) was changed: its contents do not match its sha256")
        }
        previous = (row.seq, row.sha256)
        return nil
    }

    /// The verdict once every row up to the head (`seq`, hash of the last append) was checked.
    func finish(head: (seq: Int64, sha256: String)) -> AuditVerification {
        if head.seq > previous.seq {
            return .broken(seq: previous.seq + 1, reason: "rows \(previous.seq + 1)…\(head.seq) are missing (the log's head names row \(head.seq))")
        }
        if head.sha256 != previous.sha256 {
            return .broken(seq: previous.seq, reason: "row \(previous.seq) is not the row the log's head records (changed or replaced)")
        }
        return .intact(rows: previous.seq, lastSHA256: previous.sha256)
    }
}
