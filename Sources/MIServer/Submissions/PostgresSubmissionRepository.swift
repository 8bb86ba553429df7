import Foundation
import Logging
import MIKit
import NIOSSL
import PostgresNIO

/// `SubmissionRepository` in PostgreSQL (`Server.Database` = `postgres://…`) through postgres-nio,
/// for several mi-servers on one database. The form id is the `submission` table's unique key;
/// `record` holds a transaction-scoped advisory lock on the id (and on the once-per-user key),
/// so two uploads of one id, from this process or another server, are serialized and the second
/// one finds the first.
///
/// The same columns as the SQLite repository, in snake case (`user` is a reserved word here:
/// `technician`). Text sort columns use the "C" collation, so the order (and a cursor) does not
/// depend on the database's locale. The search text is kept folded (lowercase, no diacritics)
/// in a `tsvector` of the `simple` configuration, matched by word prefix like SQLite's FTS5.
public final class PostgresSubmissionRepository: SubmissionRepository {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger

    /// Connects (the pool's connections open as queries need them) and brings the schema up to
    /// date. Throws when the database cannot be reached or a migration fails.
    public init(location: DatabaseLocation.Postgres, password: String?, logger: Logger) async throws {
        var tls: TLSConfiguration?
        if location.requireTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile = location.caFile { configuration.trustRoots = .file(caFile) }
            tls = configuration
        }
        // One connection first: the pool retries a failing connection for a minute before it
        // gives up, while a wrong password, an unknown certificate or a closed port should
        // stop the start at once, with PostgreSQL's own reason.
        let probe = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: password,
                                 database: location.database,
                                 tls: try tls.map { .require(try NIOSSLContext(configuration: $0)) } ?? .disable),
            id: 0, logger: logger)
        try await probe.close()
        let configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: password, database: location.database,
                                                         tls: tls.map { .require($0) } ?? .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
        do {
            try await migrate()
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    /// PostgreSQL's own reason for `error` (`password authentication failed for user "mi"`),
    /// or the connection's (refused, certificate not trusted); postgres-nio's description hides both.
    public static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return String(describing: underlying) }
        return "\(error.code)"
    }

    // MARK: - Migrations

    /// Applied in order, each once, recorded in `mi_migration`; never edit one that shipped.
    private static let migrations: [(name: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE submission (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                technician TEXT COLLATE "C" NOT NULL,
                form_name TEXT COLLATE "C" NOT NULL,
                uploaded_by TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                summarized BOOLEAN NOT NULL DEFAULT FALSE,
                template_id TEXT NOT NULL DEFAULT '',
                template_title TEXT COLLATE "C" NOT NULL DEFAULT '',
                template_version BIGINT NOT NULL DEFAULT 0,
                user_display_name TEXT,
                submitted_at BIGINT,
                submitted_sort BIGINT NOT NULL DEFAULT 0,
                answered BIGINT NOT NULL DEFAULT 0,
                questions BIGINT NOT NULL DEFAULT 0,
                media BIGINT NOT NULL DEFAULT 0,
                simulated BOOLEAN NOT NULL DEFAULT FALSE,
                scores TEXT,
                search TSVECTOR NOT NULL DEFAULT ''::tsvector
            )
            """,
            """
            CREATE TABLE part (
                submission_id TEXT NOT NULL REFERENCES submission(id) ON DELETE CASCADE,
                position BIGINT NOT NULL,
                name TEXT NOT NULL,
                filename TEXT NOT NULL,
                size BIGINT NOT NULL,
                sha256 TEXT NOT NULL,
                PRIMARY KEY (submission_id, position),
                UNIQUE (submission_id, name)
            )
            """,
            """
            CREATE TABLE once_per_user (
                template_id TEXT NOT NULL,
                technician TEXT NOT NULL,
                submission_id TEXT NOT NULL UNIQUE REFERENCES submission(id) ON DELETE CASCADE,
                UNIQUE (template_id, technician)
            )
            """,
            "CREATE INDEX submission_unsummarized ON submission(seq) WHERE NOT summarized",
            "CREATE INDEX submission_search ON submission USING GIN (search)",
        ] + sortIndexes),
        // Form names sort in natural order (`NaturalOrder.key`, kept beside the name); rows stored
        // before get their key in `migrate`, in the same transaction.
        ("v2-natural-names", [
            "ALTER TABLE submission ADD COLUMN form_name_sort TEXT COLLATE \"C\" NOT NULL DEFAULT ''",
            "DROP INDEX IF EXISTS submission_by_form_name",
            "DROP INDEX IF EXISTS submission_template_form_name",
            "DROP INDEX IF EXISTS submission_user_form_name",
            "CREATE INDEX submission_by_form_name_sort ON submission(form_name_sort, seq, received_at)",
            "CREATE INDEX submission_template_form_name_sort ON submission(template_id, form_name_sort, seq, received_at)",
            "CREATE INDEX submission_user_form_name_sort ON submission(technician, form_name_sort, seq, received_at)",
        ]),
    ]

    /// Every sort alone and after each equality filter (template, technician), as in SQLite.
    private static var sortIndexes: [String] {
        var statements: [String] = []
        for column in ["received_at", "submitted_sort", "template_title", "technician", "form_name"] {
            let key = column == "received_at" ? "received_at, seq" : "\(column), seq, received_at"
            statements.append("CREATE INDEX submission_by_\(column) ON submission(\(key))")
            statements.append("CREATE INDEX submission_template_\(column) ON submission(template_id, \(key))")
            if column != "technician" {
                statements.append("CREATE INDEX submission_user_\(column) ON submission(technician, \(key))")
            }
        }
        return statements
    }

    /// The advisory lock key that serializes migrations between servers starting at once.
    private static let migrationLock: Int64 = 0x6D69_5F6D_6967  // "mi_mig"

    private func migrate() async throws {
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS mi_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            let rows = try await connection.query("SELECT name FROM mi_migration", logger: logger)
            var applied = Set<String>()
            for try await name in rows.decode(String.self) { applied.insert(name) }
            for migration in Self.migrations where !applied.contains(migration.name) {
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO mi_migration (name) VALUES (\(migration.name))", logger: logger)
            }
            // The natural-order key is computed here, not in SQL: one rule (MIKit's) for both engines.
            var unkeyed: [(Int64, String)] = []
            for try await row in try await connection.query(
                "SELECT seq, form_name FROM submission WHERE form_name_sort = '' AND form_name <> ''", logger: logger
            ).decode((Int64, String).self) {
                unkeyed.append(row)
            }
            for (seq, name) in unkeyed {
                try await connection.query("UPDATE submission SET form_name_sort = \(NaturalOrder.key(name)) WHERE seq = \(seq)",
                                           logger: logger)
            }
        }
    }

    // MARK: - Recording

    public func record(_ receipt: Receipt, form: Form, placeFiles: @escaping @Sendable () throws -> Void,
                       removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome {
        let once = Self.oncePerUserKey(form)
        do {
            return try await transaction { connection in
                try await Self.lock(connection, receipt.id, logger: logger)
                if let existing = try await Self.fetch(connection, id: receipt.id, logger: logger) { return .existing(existing) }
                if let once {
                    try await Self.lock(connection, "once-per-user\u{1F}\(once.templateID)\u{1F}\(once.user)", logger: logger)
                    if let first = try await Self.holder(connection, templateID: once.templateID, user: once.user,
                                                         logger: logger) {
                        return .taken(first)
                    }
                }
                try placeFiles()
                try await Self.insert(connection, receipt, logger: logger)
                try await Self.summarize(connection, id: receipt.id, form: form, logger: logger)
                if let once {
                    try await connection.query("""
                        INSERT INTO once_per_user (template_id, technician, submission_id)
                        VALUES (\(once.templateID), \(once.user), \(receipt.id))
                        """, logger: logger)
                }
                return .recorded(receipt)
            }
        } catch {
            // The files go only while no committed row lists them, under the same lock.
            let id = receipt.id
            try? await transaction { connection in
                try await Self.lock(connection, id, logger: logger)
                if try await Self.fetch(connection, id: id, logger: logger) == nil { removeFiles() }
            }
            throw error
        }
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws);
    /// throws `body`'s own error, not postgres-nio's wrapper, so callers can tell what failed.
    private func transaction<Result>(_ body: (PostgresConnection) async throws -> sending Result) async throws
        -> sending Result {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let cause = error.closureError ?? error.beginError ?? error.commitError { throw cause }
            throw error
        }
    }

    /// Waits for, then holds until the transaction ends, the advisory lock named by `key`.
    private static func lock(_ connection: PostgresConnection, _ key: String, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
    }

    private static func oncePerUserKey(_ form: Form) -> (templateID: String, user: String)? {
        guard form.template.oncePerUser, !form.isSimulated else { return nil }
        return (form.template.id, form.user)
    }

    private static func holder(_ connection: PostgresConnection, templateID: String, user: String,
                               logger: Logger) async throws -> SubmissionSummary? {
        let rows = try await connection.query("""
            SELECT \(unescaped: summaryColumns) FROM once_per_user JOIN submission ON submission.id = once_per_user.submission_id
            WHERE once_per_user.template_id = \(templateID) AND once_per_user.technician = \(user)
            """, logger: logger)
        return try await rows.collect().first.map(summary)
    }

    private static func insert(_ connection: PostgresConnection, _ receipt: Receipt, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO submission (id, technician, form_name, form_name_sort, uploaded_by, received_at)
            VALUES (\(receipt.id), \(receipt.user), \(receipt.formName), \(NaturalOrder.key(receipt.formName)),
                    \(receipt.uploadedBy), \(seconds(receipt.receivedAt)))
            """, logger: logger)
        for (position, part) in receipt.parts.enumerated() {
            try await connection.query("""
                INSERT INTO part (submission_id, position, name, filename, size, sha256)
                VALUES (\(receipt.id), \(position), \(part.name), \(part.filename), \(part.size), \(part.sha256))
                """, logger: logger)
        }
    }

    private static func summarize(_ connection: PostgresConnection, id: String, form: Form, logger: Logger) async throws {
        let summary = form.summary
        let submitted = form.submittedAt.map(seconds)
        let scores = try StoredScores.encode(form.scoreValues)
        let search = SubmissionSearchText.folded(SubmissionSearchText.text(of: form))
        try await connection.query("""
            UPDATE submission SET summarized = TRUE, template_id = \(summary.templateID),
                template_title = \(summary.templateTitle), template_version = \(summary.templateVersion),
                user_display_name = \(form.userDisplayName), submitted_at = \(submitted), submitted_sort = \(submitted ?? 0),
                answered = \(summary.answered), questions = \(summary.questions), media = \(summary.media),
                simulated = \(form.isSimulated), scores = \(scores), search = to_tsvector('simple', \(search))
            WHERE id = \(id)
            """, logger: logger)
    }

    // MARK: - Reading

    public func receipt(id: String) async throws -> Receipt? {
        try await client.withConnection { connection in try await Self.fetch(connection, id: id, logger: logger) }
    }

    public func submissions(_ query: SubmissionQuery) async throws -> SubmissionPage {
        var sql = SQL("SELECT \(Self.summaryColumns) FROM submission")
        Self.filters(query, keyset: SubmissionKeyset(query), into: &sql)
        // Read backwards (nearest the row first) for the page before a row.
        let descending = (query.order == .descending) == (query.before == nil)
        let direction = descending ? "DESC" : "ASC"
        sql.append(" ORDER BY \(Self.column(query.sort)) \(direction), seq \(direction) LIMIT \(query.limit + 1)")
        let rows = try await client.query(sql.query, logger: logger).collect()
        let more = rows.count > query.limit
        func cursor(_ row: PostgresRow?) throws -> String? {
            guard let random = row?.makeRandomAccess() else { return nil }
            let value: SubmissionQuery.Cursor.Value = query.sort.isDate
                ? .integer(try random[Self.column(query.sort)].decode(Int64.self))
                : .text(try random[Self.column(query.sort)].decode(String.self))
            return SubmissionQuery.Cursor(sort: query.sort, order: query.order, value: value,
                                          seq: try random["seq"].decode(Int64.self)).encoded
        }
        if query.before != nil {
            let page = Array(rows.prefix(query.limit).reversed())
            return SubmissionPage(submissions: try page.map(Self.summary), nextCursor: try cursor(page.last),
                                  previousCursor: more ? try cursor(page.first) : nil)
        }
        let page = Array(rows.prefix(query.limit))
        return SubmissionPage(submissions: try page.map(Self.summary), nextCursor: more ? try cursor(page.last) : nil,
                              previousCursor: query.cursor != nil ? try cursor(page.first) : nil)
    }

    public func count(_ query: SubmissionQuery) async throws -> Int {
        var sql = SQL("SELECT COUNT(*) FROM submission")
        Self.filters(query, keyset: query.before.map { .before($0) }, into: &sql)
        return try await scalars(sql.query, Int.self).first ?? 0
    }

    public func counts(since start: Date, user: String?, by dates: SubmissionQuery.DateBasis) async throws -> SubmissionCounts {
        let time = dates == .uploaded ? "received_at" : "submitted_at"
        func condition(_ sql: inout SQL) {
            sql.append(" WHERE \(time) >= ")
            sql.bind(Self.seconds(start))
            if let user {
                sql.append(" AND technician = ")
                sql.bind(user)
            }
        }
        var templatesSQL = SQL("SELECT template_id, MAX(template_title), COUNT(*) AS n FROM submission")
        condition(&templatesSQL)
        // Ties in the ids' byte order, as on SQLite, whatever the database's locale.
        templatesSQL.append(" GROUP BY template_id ORDER BY n DESC, template_id COLLATE \"C\"")
        var templates: [SubmissionCounts.Template] = []
        for try await (id, title, count) in try await client.query(templatesSQL.query, logger: logger)
            .decode((String, String, Int).self) {
            templates.append(SubmissionCounts.Template(templateID: id, templateTitle: title, count: count))
        }
        var daysSQL = SQL("SELECT \(time) / 86400 AS day, COUNT(*) FROM submission")
        condition(&daysSQL)
        daysSQL.append(" GROUP BY day ORDER BY day")
        var days: [SubmissionCounts.Day] = []
        for try await (day, count) in try await client.query(daysSQL.query, logger: logger).decode((Int64, Int).self) {
            days.append(SubmissionCounts.Day(day: Date(timeIntervalSince1970: TimeInterval(day * 86_400)), count: count))
        }
        return SubmissionCounts(templates: templates, days: days)
    }

    public func forms(of templateID: String, filters: StatisticsFilters) async throws -> [SubmissionSummary] {
        var sql = SQL("SELECT \(Self.summaryColumns) FROM submission WHERE template_id = ")
        sql.bind(templateID)
        if let user = filters.user {
            sql.append(" AND technician = ")
            sql.bind(user)
        }
        if let version = filters.version {
            sql.append(" AND template_version = ")
            sql.bind(version)
        }
        // Whole seconds on both sides, as in SQLite.
        if filters.from != nil || filters.to != nil { sql.append(" AND submitted_at IS NOT NULL") }
        if let from = filters.from {
            sql.append(" AND submitted_sort >= ")
            sql.bind(Int64(from.timeIntervalSince1970.rounded(.down)))
        }
        if let to = filters.to {
            sql.append(" AND submitted_sort < ")
            sql.bind(Int64(to.timeIntervalSince1970.rounded(.up)))
        }
        sql.append(" ORDER BY submitted_sort, seq")
        return try await client.query(sql.query, logger: logger).collect().map(Self.summary)
    }

    public func users() async throws -> [String] {
        try await scalars("SELECT DISTINCT technician FROM submission ORDER BY technician", String.self)
    }

    public func submissionIDs() async throws -> Set<String> {
        Set(try await scalars("SELECT id FROM submission", String.self))
    }

    public func unsummarizedIDs() async throws -> [String] {
        try await scalars("SELECT id FROM submission WHERE NOT summarized ORDER BY seq", String.self)
    }

    public func summarize(id: String, form: Form) async throws {
        try await client.withConnection { connection in
            try await Self.summarize(connection, id: id, form: form, logger: logger)
        }
    }

    /// Makes every row look as stored before summaries were kept (tests of the backfill).
    func forgetSummaries() async throws {
        try await client.query("""
            UPDATE submission SET summarized = FALSE, template_id = '', template_title = '', template_version = 0,
                user_display_name = NULL, submitted_at = NULL, submitted_sort = 0, answered = 0, questions = 0, media = 0,
                simulated = FALSE, scores = NULL, search = ''::tsvector
            """, logger: logger)
    }

    private func scalars<Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, _ type: Value.Type) async throws -> [Value] {
        var values: [Value] = []
        for try await value in try await client.query(query, logger: logger).decode(Value.self) { values.append(value) }
        return values
    }

    // MARK: - Rows

    /// Qualified: `once_per_user` has columns of the same names.
    private static let summaryColumns = [
        "seq", "id", "technician", "form_name", "form_name_sort", "uploaded_by", "received_at", "template_id", "template_title",
        "template_version", "user_display_name", "submitted_at", "submitted_sort", "answered", "questions", "media",
        "simulated", "scores",
    ].map { "submission.\($0)" }.joined(separator: ", ")

    private static func fetch(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> Receipt? {
        let rows = try await connection.query("""
            SELECT id, technician, form_name, uploaded_by, received_at, scores FROM submission WHERE id = \(id)
            """, logger: logger).collect()
        guard let row = rows.first else { return nil }
        let (storedID, user, formName, uploadedBy, received, scores) = try row.decode(
            (String, String, String, String, Int64, String?).self)
        var parts: [Receipt.Part] = []
        for try await (name, filename, size, sha256) in try await connection.query("""
            SELECT name, filename, size, sha256 FROM part WHERE submission_id = \(id) ORDER BY position
            """, logger: logger).decode((String, String, Int64, String).self) {
            parts.append(Receipt.Part(name: name, filename: filename, size: size, sha256: sha256))
        }
        return Receipt(id: storedID, user: user, formName: formName, uploadedBy: uploadedBy,
                       receivedAt: Date(timeIntervalSince1970: TimeInterval(received)), parts: parts,
                       scores: StoredScores.decode(scores))
    }

    private static func summary(_ row: PostgresRow) throws -> SubmissionSummary {
        let row = row.makeRandomAccess()
        let received = try row["received_at"].decode(Int64.self)
        let submitted = try row["submitted_at"].decode(Int64?.self)
        return SubmissionSummary(
            id: try row["id"].decode(String.self), templateID: try row["template_id"].decode(String.self),
            templateTitle: try row["template_title"].decode(String.self),
            templateVersion: try row["template_version"].decode(Int.self),
            formName: try row["form_name"].decode(String.self), user: try row["technician"].decode(String.self),
            userDisplayName: try row["user_display_name"].decode(String?.self),
            submittedAt: submitted.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            receivedAt: Date(timeIntervalSince1970: TimeInterval(received)),
            uploadedBy: try row["uploaded_by"].decode(String.self),
            answered: try row["answered"].decode(Int.self), questions: try row["questions"].decode(Int.self),
            media: try row["media"].decode(Int.self), simulated: try row["simulated"].decode(Bool.self),
            scores: StoredScores.decode(try row["scores"].decode(String?.self)))
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func column(_ sort: SubmissionQuery.Sort) -> String {
        switch sort {
        case .uploaded: return "received_at"
        case .submitted: return "submitted_sort"
        case .template: return "template_title"
        case .technician: return "technician"
        case .formName: return "form_name_sort"
        }
    }


    /// The query's filters (and the keyset condition) as a WHERE clause.
    private static func filters(_ query: SubmissionQuery, keyset: SubmissionKeyset?, into sql: inout SQL) {
        var first = true
        func and(_ text: String) {
            sql.append(first ? " WHERE " : " AND ")
            sql.append(text)
            first = false
        }
        if let template = query.template {
            and("template_id = ")
            sql.bind(template)
        }
        if let user = query.user {
            and("technician = ")
            sql.bind(user)
        }
        let time = query.dates == .submitted ? "submitted_at" : "received_at"
        if let from = query.from {
            and("\(time) >= ")
            sql.bind(seconds(from))
        }
        if let before = query.until {
            and("\(time) < ")
            sql.bind(seconds(before))
        }
        if query.hideSimulated { and("NOT simulated") }
        if !query.words.isEmpty {
            and("search @@ to_tsquery('simple', ")
            sql.bind(SubmissionSearchText.prefixQuery(query.words))
            sql.append(")")
        }
        if let keyset {
            let position = keyset.cursor, below = keyset.isBelow(in: query.order)
            and("(\(column(query.sort)), seq) \(below ? "<" : ">") (")
            switch position.value {
            case .integer(let number): sql.bind(number)
            case .text(let text): sql.bind(text)
            }
            sql.append(", ")
            sql.bind(position.seq)
            sql.append(")")
        }
    }

    /// SQL text with `$n` placeholders and their values, built piece by piece.
    private struct SQL {
        var text: String
        var binds = PostgresBindings()

        init(_ text: String) { self.text = text }

        mutating func append(_ more: String) { text += more }

        mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
            binds.append(value)
            text += "$\(binds.count)"
        }

        var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }
    }

    public func snapshotReceipts(scratch: URL) async throws -> [Receipt] {
        let logger = self.logger
        return try await client.withConnection { connection in
            // The isolation pg_dump uses: every query below sees the database at one instant,
            // and nothing another server does waits for it.
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            do {
                var parts: [String: [Receipt.Part]] = [:]
                for try await (id, name, filename, size, sha256) in try await connection.query("""
                    SELECT submission_id, name, filename, size, sha256 FROM part ORDER BY submission_id, position
                    """, logger: logger).decode((String, String, String, Int64, String).self) {
                    parts[id, default: []].append(Receipt.Part(name: name, filename: filename, size: size, sha256: sha256))
                }
                var receipts: [Receipt] = []
                for try await (id, user, formName, uploadedBy, received, scores) in try await connection.query("""
                    SELECT id, technician, form_name, uploaded_by, received_at, scores FROM submission ORDER BY seq
                    """, logger: logger).decode((String, String, String, String, Int64, String?).self) {
                    receipts.append(Receipt(id: id, user: user, formName: formName, uploadedBy: uploadedBy,
                                            receivedAt: Date(timeIntervalSince1970: TimeInterval(received)), parts: parts[id] ?? [],
                                            scores: StoredScores.decode(scores)))
                }
                try await connection.query("COMMIT", logger: logger)
                return receipts
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    public func restore(_ receipts: [Receipt], form: @escaping @Sendable (Receipt) throws -> Form) async throws {
        let logger = self.logger
        try await transaction { connection in
            try await connection.query("LOCK TABLE submission IN EXCLUSIVE MODE", logger: logger)
            let rows = try await connection.query("SELECT COUNT(*) FROM submission", logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            guard count == 0 else { throw BackupError.targetNotEmpty("the PostgreSQL database: it holds submissions") }
            for receipt in receipts {
                let form = try form(receipt)
                try await Self.insert(connection, receipt, logger: logger)
                try await Self.summarize(connection, id: receipt.id, form: form, logger: logger)
                if let once = Self.oncePerUserKey(form) {
                    try await connection.query("""
                        INSERT INTO once_per_user (template_id, technician, submission_id)
                        VALUES (\(once.templateID), \(once.user), \(receipt.id))
                        """, logger: logger)
                }
            }
        }
    }

    public func discardUnrecorded(id: String, remove: @escaping @Sendable () -> Void) async throws -> Bool {
        let logger = self.logger
        return try await transaction { connection in
            try await Self.lock(connection, id, logger: logger)
            guard try await Self.fetch(connection, id: id, logger: logger) == nil else { return false }
            remove()
            return true
        }
    }
}
