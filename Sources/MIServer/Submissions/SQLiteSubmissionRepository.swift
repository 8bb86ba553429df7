import Foundation
import MIKit
import GRDB

/// `SubmissionRepository` in SQLite (`DataDirectory/mi-server.sqlite`) through GRDB. The
/// form id is the `submission` table's unique key; every write goes through the pool's single
/// writer, so two uploads of the same id are serialized and the second one finds the first.
public final class SQLiteSubmissionRepository: SubmissionRepository {
    let pool: DatabasePool

    public init(path: String) throws {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        // A 201 promises the submission survives a power cut: every commit is synced.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE submission (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    user TEXT NOT NULL,
                    formName TEXT NOT NULL,
                    uploadedBy TEXT NOT NULL,
                    receivedAt INTEGER NOT NULL
                );
                CREATE TABLE part (
                    submissionID TEXT NOT NULL REFERENCES submission(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    filename TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    PRIMARY KEY (submissionID, position),
                    UNIQUE (submissionID, name)
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            // The summary the office lists, filled by `record` and, for rows of v1, by the
            // start-up backfill (`summarized` = 0 until then). Sort columns are never NULL so a
            // cursor can compare with them.
            try db.execute(sql: """
                ALTER TABLE submission ADD COLUMN summarized INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN templateID TEXT NOT NULL DEFAULT '';
                ALTER TABLE submission ADD COLUMN templateTitle TEXT NOT NULL DEFAULT '';
                ALTER TABLE submission ADD COLUMN templateVersion INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN userDisplayName TEXT;
                ALTER TABLE submission ADD COLUMN submittedAt INTEGER;
                ALTER TABLE submission ADD COLUMN submittedSort INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN answered INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN questions INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE submission ADD COLUMN media INTEGER NOT NULL DEFAULT 0;
                CREATE VIRTUAL TABLE submission_text USING fts5(body, tokenize='unicode61 remove_diacritics 2');
                CREATE INDEX submission_unsummarized ON submission(summarized) WHERE summarized = 0;
                """)
            // Every sort alone, and after each equality filter (template, technician), so a
            // page is a walk down one index from the cursor. The upload time rides along in the
            // other sorts' indexes: a date range is checked in the index, not in the table.
            let sorts = ["receivedAt", "submittedSort", "templateTitle", "user", "formName"]
            for column in sorts {
                let key = column == "receivedAt" ? "receivedAt, seq" : "\(column), seq, receivedAt"
                try db.execute(sql: "CREATE INDEX submission_by_\(column) ON submission(\(key))")
                try db.execute(sql: "CREATE INDEX submission_template_\(column) ON submission(templateID, \(key))")
                if column != "user" {
                    try db.execute(sql: "CREATE INDEX submission_user_\(column) ON submission(user, \(key))")
                }
            }
        }
        migrator.registerMigration("v3") { db in
            // Whether `mi simulate` made the form, filled by `summarize`. No backfill: before
            // v3 no server could read a form with a `simulated` event (the action did not
            // exist, so such an upload was refused as an invalid form.json), so every row
            // stored earlier is a real inspection and the default 0 is its true value.
            try db.execute(sql: "ALTER TABLE submission ADD COLUMN simulated INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v4") { db in
            // The scores the server computed from the answers (a JSON object of key → number
            // or text; NULL when the template names no scorer), filled by `summarize`. Earlier
            // servers ignored a template's "scoring", so a stored form may name a scorer: every
            // row is summarized again from its form.json at the next start.
            try db.execute(sql: """
                ALTER TABLE submission ADD COLUMN scores TEXT;
                UPDATE submission SET summarized = 0;
                """)
        }
        migrator.registerMigration("v5-once-per-user") { db in
            // The submission that holds a user's once-per-user template: the unique key is the
            // rule, so two racing uploads cannot both commit. No backfill: templates could not
            // be once per user before this version.
            try db.execute(sql: """
                CREATE TABLE once_per_user (
                    template_id TEXT NOT NULL,
                    user TEXT NOT NULL,
                    submission_id TEXT NOT NULL UNIQUE REFERENCES submission(id) ON DELETE CASCADE,
                    UNIQUE (template_id, user)
                )
                """)
        }
        migrator.registerMigration("v6-natural-names") { db in
            // Form names sort in natural order (`NaturalOrder.key`, stored beside the name so
            // the sort walks an index); the rows stored before get their key here.
            try db.execute(sql: "ALTER TABLE submission ADD COLUMN formNameSort TEXT NOT NULL DEFAULT ''")
            for row in try Row.fetchAll(db, sql: "SELECT seq, formName FROM submission") {
                let name: String = row["formName"]
                try db.execute(sql: "UPDATE submission SET formNameSort = ? WHERE seq = ?",
                               arguments: [NaturalOrder.key(name), row["seq"] as Int64])
            }
            for prefix in ["submission_by", "submission_template", "submission_user"] {
                try db.execute(sql: "DROP INDEX IF EXISTS \(prefix)_formName")
            }
            try db.execute(sql: "CREATE INDEX submission_by_formNameSort ON submission(formNameSort, seq, receivedAt)")
            try db.execute(sql: "CREATE INDEX submission_template_formNameSort ON submission(templateID, formNameSort, seq, receivedAt)")
            try db.execute(sql: "CREATE INDEX submission_user_formNameSort ON submission(user, formNameSort, seq, receivedAt)")
        }
        return migrator
    }

    public func record(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                       removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        do {
            return try await pool.write { db in
                if let existing = try Self.fetch(db, id: receipt.id) { return .existing(existing) }
                let once = Self.oncePerUserKey(form)
                if let once, let first = try Self.holder(db, templateID: once.templateID, user: once.user) { return .taken(first) }
                try placeFiles()
                try Self.insert(db, receipt)
                try Self.summarize(db, id: receipt.id, form: form)
                if let once {
                    try db.execute(sql: "INSERT INTO once_per_user (template_id, user, submission_id) VALUES (?, ?, ?)",
                                   arguments: [once.templateID, once.user, receipt.id])
                }
                return .recorded(receipt)
            }
        } catch {
            let id = receipt.id
            try? await pool.writeWithoutTransaction { db in
                if try Self.fetch(db, id: id) == nil { removeFiles() }
            }
            // Another writer (a second server on the same data) committed the id first.
            if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                if let existing = try await self.receipt(id: receipt.id) { return .existing(existing) }
                // …or the user's other form of a once-per-user template.
                if let once = Self.oncePerUserKey(form),
                   let first = try await pool.read({ db in try Self.holder(db, templateID: once.templateID, user: once.user) }) {
                    return .taken(first)
                }
            }
            throw error
        }
    }

    /// The once-per-user table's key for `form`, or nil when its template is not once per user
    /// or the form is simulated (made-up answers are not a person's one form).
    private static func oncePerUserKey(_ form: Form) -> (templateID: String, user: String)? {
        guard form.template.oncePerUser, !form.isSimulated else { return nil }
        return (form.template.id, form.user)
    }

    /// The summary of the submission that holds `user`'s once-per-user template `templateID`.
    private static func holder(_ db: Database, templateID: String, user: String) throws -> SubmissionSummary? {
        try Row.fetchOne(db, sql: """
            SELECT submission.* FROM once_per_user JOIN submission ON submission.id = once_per_user.submission_id
            WHERE once_per_user.template_id = ? AND once_per_user.user = ?
            """, arguments: [templateID, user]).map(summary)
    }

    public func receipt(id: String) async throws -> Receipt? {
        try await pool.read { db in try Self.fetch(db, id: id) }
    }

    public func submissions(_ query: SubmissionQuery) async throws -> SubmissionPage {
        try await pool.read { db in
            let (sql, arguments) = Self.pageSQL(query)
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let more = rows.count > query.limit
            func cursor(_ row: Row?) -> String? {
                row.map { SubmissionQuery.Cursor(sort: query.sort, order: query.order, value: Self.sortValue($0, query.sort),
                                                 seq: $0["seq"]).encoded }
            }
            if query.before != nil {
                // Fetched backwards from the row before which the page ends.
                let page = Array(rows.prefix(query.limit).reversed())
                return SubmissionPage(submissions: page.map(Self.summary), nextCursor: cursor(page.last),
                                      previousCursor: more ? cursor(page.first) : nil)
            }
            let page = Array(rows.prefix(query.limit))
            return SubmissionPage(submissions: page.map(Self.summary), nextCursor: more ? cursor(page.last) : nil,
                                  previousCursor: query.cursor != nil ? cursor(page.first) : nil)
        }
    }

    public func count(_ query: SubmissionQuery) async throws -> Int {
        try await pool.read { db in
            // Counting has no order to keep: the date range may pick the index.
            var unsorted = query
            if query.before == nil { unsorted.sort = .uploaded }
            let (conditions, arguments) = Self.filters(unsorted, keyset: query.before.map { .before($0) })
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission" + Self.whereClause(conditions),
                                    arguments: arguments) ?? 0
        }
    }

    public func counts(since start: Date, user: String?, by dates: SubmissionQuery.DateBasis) async throws -> SubmissionCounts {
        let time = dates == .uploaded ? "receivedAt" : "submittedAt"
        return try await pool.read { db in
            var condition = "\(time) >= ?"
            var arguments: StatementArguments = [Self.seconds(start)]
            if let user {
                condition += " AND user = ?"
                arguments += [user]
            }
            let templates = try Row.fetchAll(db, sql: """
                SELECT templateID, MAX(templateTitle) AS title, COUNT(*) AS n FROM submission WHERE \(condition)
                GROUP BY templateID ORDER BY n DESC, templateID
                """, arguments: arguments).map { row in
                SubmissionCounts.Template(templateID: row["templateID"], templateTitle: row["title"], count: row["n"])
            }
            let days = try Row.fetchAll(db, sql: """
                SELECT \(time) / 86400 AS day, COUNT(*) AS n FROM submission WHERE \(condition)
                GROUP BY day ORDER BY day
                """, arguments: arguments).map { row in
                let day: Int64 = row["day"]
                return SubmissionCounts.Day(day: Date(timeIntervalSince1970: TimeInterval(day * 86_400)), count: row["n"])
            }
            return SubmissionCounts(templates: templates, days: days)
        }
    }

    public func forms(of templateID: String, filters: StatisticsFilters) async throws -> [SubmissionSummary] {
        var conditions = ["templateID = ?"]
        var arguments: StatementArguments = [templateID]
        if let user = filters.user {
            conditions.append("user = ?")
            arguments += [user]
        }
        if let version = filters.version {
            conditions.append("templateVersion = ?")
            arguments += [version]
        }
        // Whole seconds on both sides (the parsers give whole seconds): the stored second,
        // rounded down, is in the range exactly when the submission time is.
        if filters.from != nil || filters.to != nil { conditions.append("submittedAt IS NOT NULL") }
        if let from = filters.from {
            conditions.append("submittedSort >= ?")
            arguments += [Int64(from.timeIntervalSince1970.rounded(.down))]
        }
        if let to = filters.to {
            conditions.append("submittedSort < ?")
            arguments += [Int64(to.timeIntervalSince1970.rounded(.up))]
        }
        let sql = "SELECT * FROM submission" + Self.whereClause(conditions) + " ORDER BY submittedSort, seq"
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map(Self.summary)
        }
    }

    public func users() async throws -> [String] {
        // One index seek per technician rather than a walk over every submission.
        try await pool.read { db in
            try String.fetchAll(db, sql: """
                WITH RECURSIVE technician(name) AS (
                    SELECT MIN(user) FROM submission
                    UNION ALL
                    SELECT (SELECT MIN(user) FROM submission WHERE user > technician.name) FROM technician WHERE name IS NOT NULL
                )
                SELECT name FROM technician WHERE name IS NOT NULL
                """)
        }
    }

    public func unsummarizedIDs() async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM submission WHERE summarized = 0 ORDER BY seq")
        }
    }

    public func summarize(id: String, form: Form) async throws {
        try await pool.write { db in try Self.summarize(db, id: id, form: form) }
    }

    public func submissionIDs() async throws -> Set<String> {
        try await pool.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM submission")) }
    }

    /// Makes every row look as stored before summaries were kept (tests of the backfill).
    func forgetSummaries() async throws {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE submission SET summarized = 0, templateID = '', templateTitle = '', templateVersion = 0,
                    userDisplayName = NULL, submittedAt = NULL, submittedSort = 0, answered = 0, questions = 0, media = 0,
                    simulated = 0, scores = NULL;
                DELETE FROM submission_text;
                """)
        }
    }

    // MARK: - Rows

    private static func fetch(_ db: Database, id: String) throws -> Receipt? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM submission WHERE id = ?", arguments: [id]) else {
            return nil
        }
        return try receipt(db, row: row)
    }

    private static func receipt(_ db: Database, row: Row) throws -> Receipt {
        let id: String = row["id"]
        let parts = try Row.fetchAll(db, sql: "SELECT * FROM part WHERE submissionID = ? ORDER BY position",
                                     arguments: [id]).map { part in
            Receipt.Part(name: part["name"], filename: part["filename"], size: part["size"], sha256: part["sha256"])
        }
        let seconds: Int64 = row["receivedAt"]
        return Receipt(id: id, user: row["user"], formName: row["formName"], uploadedBy: row["uploadedBy"],
                       receivedAt: Date(timeIntervalSince1970: TimeInterval(seconds)), parts: parts,
                       scores: StoredScores.decode(row["scores"]))
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// The summary columns and the search text of submission `id`, from its form.
    private static func summarize(_ db: Database, id: String, form: Form) throws {
        guard let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM submission WHERE id = ?", arguments: [id]) else { return }
        let summary = form.summary
        let submitted = form.submittedAt.map(seconds)
        try db.execute(sql: """
            UPDATE submission SET summarized = 1, templateID = ?, templateTitle = ?, templateVersion = ?,
                userDisplayName = ?, submittedAt = ?, submittedSort = ?, answered = ?, questions = ?, media = ?,
                simulated = ?, scores = ?
            WHERE seq = ?
            """, arguments: [summary.templateID, summary.templateTitle, summary.templateVersion, form.userDisplayName,
                             submitted, submitted ?? 0, summary.answered, summary.questions, summary.media,
                             form.isSimulated, try StoredScores.encode(form.scoreValues), seq])
        try db.execute(sql: "DELETE FROM submission_text WHERE rowid = ?", arguments: [seq])
        try db.execute(sql: "INSERT INTO submission_text (rowid, body) VALUES (?, ?)",
                       arguments: [seq, SubmissionSearchText.text(of: form)])
    }

    private static func column(_ sort: SubmissionQuery.Sort) -> String {
        switch sort {
        case .uploaded: return "receivedAt"
        case .submitted: return "submittedSort"
        case .template: return "templateTitle"
        case .technician: return "user"
        case .formName: return "formNameSort"
        }
    }

    private static func sortValue(_ row: Row, _ sort: SubmissionQuery.Sort) -> SubmissionQuery.Cursor.Value {
        sort.isDate ? .integer(row[column(sort)]) : .text(row[column(sort)])
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }


    /// The query's filters (and the keyset condition) as SQL conditions.
    private static func filters(_ query: SubmissionQuery, keyset: SubmissionKeyset?) -> ([String], StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let template = query.template {
            conditions.append("templateID = ?")
            arguments += [template]
        }
        if let user = query.user {
            conditions.append("user = ?")
            arguments += [user]
        }
        // A unary `+` keeps SQLite from driving the query by that term (a date range, the
        // rows a search found) and sorting what it found: the page is then a walk down the
        // sort's index that stops after `limit` rows, however many rows match.
        let time = query.dates == .submitted ? "+submittedAt" : query.sort == .uploaded ? "receivedAt" : "+receivedAt"
        if let from = query.from {
            conditions.append("\(time) >= ?")
            arguments += [seconds(from)]
        }
        if let before = query.until {
            conditions.append("\(time) < ?")
            arguments += [seconds(before)]
        }
        if query.hideSimulated { conditions.append("+simulated = 0") }
        if !query.words.isEmpty {
            conditions.append("+seq IN (SELECT rowid FROM submission_text WHERE submission_text MATCH ?)")
            arguments += [SubmissionSearchText.match(query.words)]
        }
        if let keyset {
            let position = keyset.cursor, below = keyset.isBelow(in: query.order)
            conditions.append("(\(column(query.sort)), seq) \(below ? "<" : ">") (?, ?)")
            switch position.value {
            case .integer(let number): arguments += [number]
            case .text(let text): arguments += [text]
            }
            arguments += [position.seq]
        }
        return (conditions, arguments)
    }

    /// The page's rows, limit + 1 of them; read backwards (nearest the row first) with `before`.
    private static func pageSQL(_ query: SubmissionQuery) -> (String, StatementArguments) {
        let keyset: SubmissionKeyset? = SubmissionKeyset(query)
        let (conditions, arguments) = filters(query, keyset: keyset)
        let descending = (query.order == .descending) == (query.before == nil)
        let direction = descending ? "DESC" : "ASC"
        let sql = "SELECT * FROM submission" + whereClause(conditions)
            + " ORDER BY \(column(query.sort)) \(direction), seq \(direction) LIMIT \(query.limit + 1)"
        return (sql, arguments)
    }

    private static func summary(_ row: Row) -> SubmissionSummary {
        let received: Int64 = row["receivedAt"]
        let submitted: Int64? = row["submittedAt"]
        return SubmissionSummary(
            id: row["id"], templateID: row["templateID"], templateTitle: row["templateTitle"],
            templateVersion: row["templateVersion"], formName: row["formName"], user: row["user"],
            userDisplayName: row["userDisplayName"],
            submittedAt: submitted.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            receivedAt: Date(timeIntervalSince1970: TimeInterval(received)), uploadedBy: row["uploadedBy"],
            answered: row["answered"], questions: row["questions"], media: row["media"], simulated: row["simulated"],
            scores: StoredScores.decode(row["scores"]))
    }

    private static func insert(_ db: Database, _ receipt: Receipt) throws {
        try db.execute(sql: """
            INSERT INTO submission (id, user, formName, formNameSort, uploadedBy, receivedAt) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [receipt.id, receipt.user, receipt.formName, NaturalOrder.key(receipt.formName), receipt.uploadedBy,
                             seconds(receipt.receivedAt)])
        for (position, part) in receipt.parts.enumerated() {
            try db.execute(sql: """
                INSERT INTO part (submissionID, position, name, filename, size, sha256) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [receipt.id, position, part.name, part.filename, part.size, part.sha256])
        }
    }

    public func snapshotReceipts(scratch: URL) async throws -> [Receipt] {
        let pool = self.pool
        return try await Blocking.run {
            let copy = try DatabaseQueue(path: scratch.path)
            // One step: the source's read lock is held for the copy's moment only, and writers
            // (WAL mode) are never blocked by it.
            try pool.backup(to: copy)
            return try copy.read { db in
                var parts: [String: [Receipt.Part]] = [:]
                for part in try Row.fetchAll(db, sql: "SELECT * FROM part ORDER BY submissionID, position") {
                    parts[part["submissionID"], default: []].append(
                        Receipt.Part(name: part["name"], filename: part["filename"], size: part["size"], sha256: part["sha256"]))
                }
                return try Row.fetchAll(db, sql: "SELECT * FROM submission ORDER BY seq").map { row in
                    let id: String = row["id"]
                    let seconds: Int64 = row["receivedAt"]
                    return Receipt(id: id, user: row["user"], formName: row["formName"], uploadedBy: row["uploadedBy"],
                                   receivedAt: Date(timeIntervalSince1970: TimeInterval(seconds)), parts: parts[id] ?? [],
                                   scores: StoredScores.decode(row["scores"]))
                }
            }
        }
    }

    public func restore(_ receipts: [Receipt], form: @escaping @Sendable (Receipt) throws -> Form) async throws {
        try await pool.write { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") == 0 else {
                throw BackupError.targetNotEmpty("the SQLite database: it holds submissions")
            }
            for receipt in receipts {
                let form = try form(receipt)
                try Self.insert(db, receipt)
                try Self.summarize(db, id: receipt.id, form: form)
                if let once = Self.oncePerUserKey(form) {
                    try db.execute(sql: "INSERT INTO once_per_user (template_id, user, submission_id) VALUES (?, ?, ?)",
                                   arguments: [once.templateID, once.user, receipt.id])
                }
            }
        }
    }

    public func discardUnrecorded(id: String, remove: @escaping @Sendable () -> Void) async throws -> Bool {
        try await pool.write { db in
            guard try Self.fetch(db, id: id) == nil else { return false }
            remove()
            return true
        }
    }
}
