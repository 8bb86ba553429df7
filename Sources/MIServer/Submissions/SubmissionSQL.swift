import Foundation
import MIKit

/// A value bound to a placeholder of `SQLText`, or read from a column.
enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    case bool(Bool)
    /// REAL in SQLite, DOUBLE PRECISION in PostgreSQL (the review's times).
    case double(Double)
    case null
}

/// SQL with its values kept apart from the text: each engine spells the placeholders its way
/// (`?` in SQLite, `$1`, `$2`… in PostgreSQL) when it runs the statement.
struct SQLText: Sendable {
    /// The text between the placeholders: one more piece than values.
    private(set) var pieces: [String]
    private(set) var values: [SQLValue] = []

    init(_ text: String) { pieces = [text] }

    /// Just `value`, bound.
    init(binding value: SQLValue) {
        pieces = [""]
        bind(value)
    }

    mutating func append(_ text: String) { pieces[pieces.count - 1] += text }

    mutating func bind(_ value: SQLValue) {
        values.append(value)
        pieces.append("")
    }

    mutating func bind(_ value: Int64) { bind(.integer(value)) }
    mutating func bind(_ value: Int) { bind(.integer(Int64(value))) }
    mutating func bind(_ value: String) { bind(.text(value)) }
    mutating func bind(_ value: FormID) { bind(.text(value.description)) }

    /// The text with `placeholder(n)` (n from 1) for each value.
    func text(placeholder: (Int) -> String) -> String {
        var text = pieces[0]
        for (index, piece) in pieces.dropFirst().enumerated() { text += placeholder(index + 1) + piece }
        return text
    }
}

/// One result row, by column name.
typealias SQLRow = [String: SQLValue]

/// A column that is missing or holds another type than the schema gives it.
struct SQLColumnError: Error, CustomStringConvertible {
    var column: String
    var found: SQLValue?
    var description: String { "column \(column) of the submissions database holds \(found.map { "\($0)" } ?? "nothing")" }
}

extension Dictionary where Key == String, Value == SQLValue {
    func integer(_ column: String) throws -> Int64 {
        guard case .integer(let value) = self[column] else { throw SQLColumnError(column: column, found: self[column]) }
        return value
    }

    func text(_ column: String) throws -> String {
        guard case .text(let value) = self[column] else { throw SQLColumnError(column: column, found: self[column]) }
        return value
    }

    /// A form id column (its lowercase text).
    func formID(_ column: String) throws -> FormID {
        guard case .text(let value) = self[column], let id = FormID(value) else { throw SQLColumnError(column: column, found: self[column]) }
        return id
    }

    /// A review state column.
    func reviewState(_ column: String) throws -> ReviewState {
        guard case .text(let value) = self[column], let state = ReviewState(rawValue: value) else {
            throw SQLColumnError(column: column, found: self[column])
        }
        return state
    }

    /// Nil for NULL, else `read(column)`.
    func optional<Read>(_ column: String, _ read: (String) throws -> Read) throws -> Read? {
        self[column] == .null ? nil : try read(column)
    }

    /// A boolean column: BOOLEAN in PostgreSQL, 0 or 1 in SQLite.
    func bool(_ column: String) throws -> Bool {
        switch self[column] {
        case .bool(let value): return value
        case .integer(let value): return value != 0
        case .text, .double, .null, nil: throw SQLColumnError(column: column, found: self[column])
        }
    }

    /// A REAL or DOUBLE PRECISION column (a whole number read back as one too).
    func double(_ column: String) throws -> Double {
        switch self[column] {
        case .double(let value): return value
        case .integer(let value): return Double(value)
        case .text, .bool, .null, nil: throw SQLColumnError(column: column, found: self[column])
        }
    }

    func date(_ column: String) throws -> Date { Date(timeIntervalSince1970: TimeInterval(try integer(column))) }
}

/// What differs between the engines in the SQL the submissions core writes. Everything else —
/// the tables, the columns (snake case, the technician's column `technician`), the filters, the
/// keyset paging, the summaries, once per user — is the same text on both.
enum SubmissionDialect: Sendable {
    case sqlite
    case postgres

    /// `column` as a term the planner should not drive the query by. SQLite takes a unary `+`
    /// for that: a date range or the rows a search found are then checked while walking the
    /// sort's index, which stops after `limit` rows, instead of being fetched and sorted.
    /// PostgreSQL's planner weighs both on its own.
    func unindexed(_ column: String) -> String {
        switch self {
        case .sqlite: return "+" + column
        case .postgres: return column
        }
    }

    /// Text compared byte by byte whatever the database's locale (SQLite always does).
    func binary(_ column: String) -> String {
        switch self {
        case .sqlite: return column
        case .postgres: return column + " COLLATE \"C\""
        }
    }

    /// The condition that every one of `words` begins a word of the submission's search text:
    /// FTS5's `submission_text` in SQLite, the `search` tsvector in PostgreSQL.
    func searchCondition(_ words: [String]) -> SQLText {
        switch self {
        case .sqlite:
            var sql = SQLText("+seq IN (SELECT rowid FROM submission_text WHERE submission_text MATCH ")
            sql.bind(SubmissionSearchText.match(words))
            sql.append(")")
            return sql
        case .postgres:
            var sql = SQLText("search @@ to_tsquery('simple', ")
            sql.bind(SubmissionSearchText.prefixQuery(words))
            sql.append(")")
            return sql
        }
    }

    /// Stores `text` as submission `id`'s search text, replacing what it had.
    func storeSearchText(id: String, _ text: String) -> [SQLText] {
        switch self {
        case .sqlite:
            var delete = SQLText("DELETE FROM submission_text WHERE rowid = (SELECT seq FROM submission WHERE id = ")
            delete.bind(id)
            delete.append(")")
            var insert = SQLText("INSERT INTO submission_text (rowid, body) SELECT seq, ")
            insert.bind(text)
            insert.append(" FROM submission WHERE id = ")
            insert.bind(id)
            return [delete, insert]
        case .postgres:
            var update = SQLText("UPDATE submission SET search = to_tsvector('simple', ")
            update.bind(SubmissionSearchText.folded(text))
            update.append(") WHERE id = ")
            update.bind(id)
            return [update]
        }
    }

    /// `value` (JSON text) as a value for a JSON column: PostgreSQL's are JSONB, SQLite's text.
    func json(_ value: SQLValue) -> SQLText {
        switch self {
        case .sqlite: return SQLText(binding: value)
        case .postgres:
            var sql = SQLText("CAST(")
            sql.bind(value)
            sql.append(" AS JSONB)")
            return sql
        }
    }

    /// Forgets every submission's search text.
    var clearSearchText: SQLText {
        switch self {
        case .sqlite: return SQLText("DELETE FROM submission_text")
        case .postgres: return SQLText("UPDATE submission SET search = ''::tsvector")
        }
    }
}

/// The submissions' SQL and rows, once for both engines: `SQLiteSubmissionRepository` and
/// `PostgresSubmissionRepository` run these statements, each in its own transactions and with
/// its own way of serializing `record`.
struct SubmissionSQL: Sendable {
    let dialect: SubmissionDialect

    // MARK: - Schema

    /// The sort columns' indexes: every sort alone, and after each equality filter (template,
    /// technician), so a page is a walk down one index from the cursor. The upload time rides
    /// along in the other sorts' indexes: a date range is checked in the index, not the table.
    static func sortIndexes(_ columns: [String]) -> [String] {
        var statements: [String] = []
        for column in columns {
            let key = column == "received_at" ? "received_at, seq" : "\(column), seq, received_at"
            statements.append("CREATE INDEX submission_by_\(column) ON submission(\(key))")
            statements.append("CREATE INDEX submission_template_\(column) ON submission(template_id, \(key))")
            if column != "technician" {
                statements.append("CREATE INDEX submission_user_\(column) ON submission(technician, \(key))")
            }
        }
        return statements
    }

    /// Where the office's review of each submission stands (`ReviewState`), kept on its row by
    /// the review store in the same transaction as the event it records, so the listing, the
    /// dashboard, the statistics and the exports filter and show it; every stored row starts
    /// `received`.
    static let reviewStateSchema = [
        "ALTER TABLE submission ADD COLUMN review_state TEXT NOT NULL DEFAULT 'received'",
        "CREATE INDEX submission_review_state ON submission(review_state, received_at, seq)",
    ]

    /// Versions: a form the office sent back comes back corrected as the next version. The
    /// `submission` row (and `part`) is always the current version, the one listed, counted,
    /// searched and exported; `version` says which it is. Each version it superseded keeps its
    /// receipt in `submission_version` and `version_part`, with when it was superseded.
    static let versionSchema = [
        "ALTER TABLE submission ADD COLUMN version BIGINT NOT NULL DEFAULT 1",
        """
        CREATE TABLE submission_version (
            submission_id TEXT NOT NULL REFERENCES submission(id) ON DELETE CASCADE,
            version BIGINT NOT NULL,
            technician TEXT NOT NULL,
            form_name TEXT NOT NULL,
            uploaded_by TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            scores TEXT,
            superseded_at BIGINT NOT NULL,
            PRIMARY KEY (submission_id, version)
        )
        """,
        """
        CREATE TABLE version_part (
            submission_id TEXT NOT NULL,
            version BIGINT NOT NULL,
            position BIGINT NOT NULL,
            name TEXT NOT NULL,
            filename TEXT NOT NULL,
            size BIGINT NOT NULL,
            sha256 TEXT NOT NULL,
            PRIMARY KEY (submission_id, version, position),
            FOREIGN KEY (submission_id, version) REFERENCES submission_version(submission_id, version) ON DELETE CASCADE
        )
        """,
    ]

    /// The sort columns of today's schema.
    static let sortColumns = ["received_at", "submitted_sort", "template_title", "technician", "form_name_sort"]

    static func column(_ sort: SubmissionQuery.Sort) -> String {
        switch sort {
        case .uploaded: return "received_at"
        case .submitted: return "submitted_sort"
        case .template: return "template_title"
        case .technician: return "technician"
        case .formName: return "form_name_sort"
        }
    }

    /// Qualified: `once_per_user` has columns of the same names.
    static let summaryColumns = [
        "seq", "id", "technician", "form_name", "form_name_sort", "uploaded_by", "received_at", "template_id", "template_title",
        "template_version", "user_display_name", "submitted_at", "submitted_sort", "answered", "questions", "media",
        "simulated", "scores", "review_state", "version",
    ].map { "submission.\($0)" }.joined(separator: ", ")

    // MARK: - Writing

    /// Everything `record` (and `restore`) writes for a new submission: its row, its parts, its
    /// summary and search text, and its once-per-user claim.
    func insert(_ receipt: Receipt, form: Form) throws -> [SQLText] {
        var statements = [Self.insert(into: "submission", [
            ("id", .text(receipt.id.description)), ("technician", .text(receipt.user)), ("form_name", .text(receipt.formName)),
            ("form_name_sort", .text(NaturalOrder.key(receipt.formName))), ("uploaded_by", .text(receipt.uploadedBy)),
            ("received_at", .integer(Self.seconds(receipt.receivedAt))), ("version", .integer(Int64(receipt.storedVersion))),
        ])]
        statements += Self.parts(of: receipt, into: "part")
        statements += try summarize(id: receipt.id, form: form)
        if let once = Self.oncePerUserKey(form) {
            statements.append(Self.insert(into: "once_per_user", [
                ("template_id", .text(once.templateID)), ("technician", .text(once.user)), ("submission_id", .text(receipt.id.description)),
            ]))
        }
        return statements
    }

    /// The inserts of `receipt`'s parts into `part` or (with their version) `version_part`.
    private static func parts(of receipt: Receipt, into table: String) -> [SQLText] {
        receipt.parts.enumerated().map { position, part in
            var values: [(column: String, value: SQLValue)] = [("submission_id", .text(receipt.id.description))]
            if table == "version_part" { values.append(("version", .integer(Int64(receipt.storedVersion)))) }
            values += [("position", .integer(Int64(position))), ("name", .text(part.name)), ("filename", .text(part.filename)),
                       ("size", .integer(part.size)), ("sha256", .text(part.sha256))]
            return insert(into: table, values)
        }
    }

    /// Everything `supersede` writes: the current version's receipt kept in `submission_version`
    /// and `version_part`, then `receipt` (the next version, same id) as the current row — its
    /// parts, receipt columns, summary and search text — marked `edited` for the office.
    func supersede(_ current: Receipt, with receipt: Receipt, form: Form, at date: Date) throws -> [SQLText] {
        var statements = try insertSuperseded(current, at: date)
        var delete = SQLText("DELETE FROM part WHERE submission_id = ")
        delete.bind(receipt.id)
        statements.append(delete)
        statements += Self.parts(of: receipt, into: "part")
        var update = SQLText("UPDATE submission SET review_state = 'edited'")
        let values: [(String, SQLValue)] = [
            ("version", .integer(Int64(receipt.storedVersion))), ("technician", .text(receipt.user)),
            ("form_name", .text(receipt.formName)), ("form_name_sort", .text(NaturalOrder.key(receipt.formName))),
            ("uploaded_by", .text(receipt.uploadedBy)), ("received_at", .integer(Self.seconds(receipt.receivedAt))),
        ]
        for (column, value) in values {
            update.append(", \(column) = ")
            update.bind(value)
        }
        update.append(" WHERE id = ")
        update.bind(receipt.id)
        statements.append(update)
        return statements + (try summarize(id: receipt.id, form: form))
    }

    /// A superseded version's receipt as `submission_version` and `version_part` keep it (its
    /// form's current row must exist).
    func insertSuperseded(_ receipt: Receipt, at date: Date) throws -> [SQLText] {
        [Self.insert(into: "submission_version", [
            ("submission_id", .text(receipt.id.description)), ("version", .integer(Int64(receipt.storedVersion))),
            ("technician", .text(receipt.user)), ("form_name", .text(receipt.formName)), ("uploaded_by", .text(receipt.uploadedBy)),
            ("received_at", .integer(Self.seconds(receipt.receivedAt))),
            ("scores", try StoredScores.encode(receipt.scores).map { .text($0) } ?? .null),
            ("superseded_at", .integer(Self.seconds(date))),
        ])] + Self.parts(of: receipt, into: "version_part")
    }

    /// `INSERT INTO table (columns) VALUES (values)`.
    static func insert(into table: String, _ values: [(column: String, value: SQLValue)]) -> SQLText {
        insert(into: table, expressions: values.map { ($0.column, SQLText(binding: $0.value)) })
    }

    /// `INSERT INTO table (columns) VALUES (expressions)`, each expression SQL of its own (a
    /// bound value, or one wrapped as the engine needs).
    static func insert(into table: String, expressions: [(column: String, value: SQLText)]) -> SQLText {
        var sql = SQLText("INSERT INTO \(table) (\(expressions.map(\.column).joined(separator: ", "))) VALUES (")
        for (index, expression) in expressions.map(\.value).enumerated() {
            if index > 0 { sql.append(", ") }
            sql.append(expression)
        }
        sql.append(")")
        return sql
    }

    /// The summary columns and the search text of submission `id`, from its form.
    func summarize(id: FormID, form: Form) throws -> [SQLText] {
        let summary = form.summary
        let submitted = form.submittedAt.map(Self.seconds)
        let values: [(String, SQLValue)] = [
            ("template_id", .text(summary.templateID)), ("template_title", .text(summary.templateTitle)),
            ("template_version", .integer(Int64(summary.templateVersion))),
            ("user_display_name", form.userDisplayName.map { .text($0) } ?? .null),
            ("submitted_at", submitted.map { .integer($0) } ?? .null), ("submitted_sort", .integer(submitted ?? 0)),
            ("answered", .integer(Int64(summary.answered))), ("questions", .integer(Int64(summary.questions))),
            ("media", .integer(Int64(summary.media))), ("simulated", .bool(form.isSimulated)),
            ("scores", try StoredScores.encode(form.scoreValues).map { .text($0) } ?? .null),
        ]
        var sql = SQLText("UPDATE submission SET summarized = TRUE")
        for (column, value) in values {
            sql.append(", \(column) = ")
            sql.bind(value)
        }
        sql.append(" WHERE id = ")
        sql.bind(id)
        return [sql] + dialect.storeSearchText(id: id.description, SubmissionSearchText.text(of: form))
    }

    /// Makes every row look as stored before summaries were kept (tests of the backfill).
    var forgetSummaries: [SQLText] {
        [SQLText("""
            UPDATE submission SET summarized = FALSE, template_id = '', template_title = '', template_version = 0,
                user_display_name = NULL, submitted_at = NULL, submitted_sort = 0, answered = 0, questions = 0, media = 0,
                simulated = FALSE, scores = NULL
            """), dialect.clearSearchText]
    }

    /// The once-per-user table's key for `form`, or nil when its template is not once per user
    /// or the form is simulated (made-up answers are not a person's one form).
    static func oncePerUserKey(_ form: Form) -> (templateID: String, user: String)? {
        guard form.template.oncePerUser, !form.isSimulated else { return nil }
        return (form.template.id, form.user)
    }

    // MARK: - Reading

    /// The submission that holds `user`'s once-per-user template `templateID` (`summary`).
    func holder(templateID: String, user: String) -> SQLText {
        var sql = SQLText("""
            SELECT \(Self.summaryColumns) FROM once_per_user JOIN submission ON submission.id = once_per_user.submission_id
            WHERE once_per_user.template_id =
            """ + " ")
        sql.bind(templateID)
        sql.append(" AND once_per_user.technician = ")
        sql.bind(user)
        return sql
    }

    /// Submission `id`'s row, then its parts (`receipt(row:parts:)`).
    func receipt(id: FormID) -> (row: SQLText, parts: SQLText) {
        var row = SQLText("SELECT id, technician, form_name, uploaded_by, received_at, scores, version FROM submission WHERE id = ")
        row.bind(id)
        var parts = SQLText("SELECT submission_id, name, filename, size, sha256 FROM part WHERE submission_id = ")
        parts.bind(id)
        parts.append(" ORDER BY position")
        return (row, parts)
    }

    /// Every submission's row and every part, in the order stored (`receipts(rows:parts:)`).
    static let allReceipts = SQLText("SELECT id, technician, form_name, uploaded_by, received_at, scores, version FROM submission ORDER BY seq")
    static let allParts = SQLText("SELECT submission_id, name, filename, size, sha256 FROM part ORDER BY submission_id, position")
    static let count = SQLText("SELECT COUNT(*) AS n FROM submission")

    static func receipt(row: SQLRow, parts: [SQLRow]) throws -> Receipt {
        Receipt(id: try row.formID("id"), user: try row.text("technician"), formName: try row.text("form_name"),
                uploadedBy: try row.text("uploaded_by"), receivedAt: try row.date("received_at"),
                parts: try parts.map(part), scores: StoredScores.decode(try row.optional("scores", row.text)),
                version: Int(try row.integer("version")))
    }

    static func receipts(rows: [SQLRow], parts: [SQLRow]) throws -> [Receipt] {
        let byID = Dictionary(grouping: parts) { $0["submission_id"] }
        return try rows.map { row in try receipt(row: row, parts: byID[row["id"]] ?? []) }
    }

    /// The superseded versions' receipts (`id` as the form id's column, like `submission`'s),
    /// of form `id` or of every form, oldest version first; then their parts.
    func superseded(id: FormID?) -> (rows: SQLText, parts: SQLText) {
        var rows = SQLText("""
            SELECT submission_id AS id, technician, form_name, uploaded_by, received_at, scores, version
            FROM submission_version
            """)
        var parts = SQLText("SELECT submission_id, version, name, filename, size, sha256 FROM version_part")
        if let id {
            rows.append(" WHERE submission_id = ")
            rows.bind(id)
            parts.append(" WHERE submission_id = ")
            parts.bind(id)
        }
        rows.append(" ORDER BY submission_id, version")
        parts.append(" ORDER BY submission_id, version, position")
        return (rows, parts)
    }

    /// The statements `restore` runs for the receipts `snapshotReceipts` listed: each form's
    /// highest version as its current row (in the order given), the others kept as superseded
    /// (superseded when the next version was received).
    func restore(_ receipts: [Receipt], form: (Receipt) throws -> Form) throws -> [SQLText] {
        var highest: [FormID: Int] = [:]
        var received: [String: Date] = [:]
        for receipt in receipts {
            highest[receipt.id] = max(highest[receipt.id] ?? 0, receipt.storedVersion)
            received["\(receipt.id) \(receipt.storedVersion)"] = receipt.receivedAt
        }
        var current: [SQLText] = [], earlier: [SQLText] = []
        for receipt in receipts {
            if receipt.storedVersion == highest[receipt.id] {
                current += try insert(receipt, form: try form(receipt))
            } else {
                let next = received["\(receipt.id) \(receipt.storedVersion + 1)"] ?? receipt.receivedAt
                earlier += try insertSuperseded(receipt, at: next)
            }
        }
        return current + earlier
    }

    static func supersededReceipts(rows: [SQLRow], parts: [SQLRow]) throws -> [Receipt] {
        let byVersion = Dictionary(grouping: parts) { [$0["submission_id"], $0["version"]] }
        return try rows.map { row in try receipt(row: row, parts: byVersion[[row["id"], row["version"]]] ?? []) }
    }

    private static func part(_ row: SQLRow) throws -> Receipt.Part {
        Receipt.Part(name: try row.text("name"), filename: try row.text("filename"), size: try row.integer("size"),
                     sha256: try row.text("sha256"))
    }

    static func summary(_ row: SQLRow) throws -> SubmissionSummary {
        SubmissionSummary(
            id: try row.formID("id"), templateID: try row.text("template_id"), templateTitle: try row.text("template_title"),
            templateVersion: Int(try row.integer("template_version")), formName: try row.text("form_name"),
            user: try row.text("technician"), userDisplayName: try row.optional("user_display_name", row.text),
            submittedAt: try row.optional("submitted_at", row.date),
            receivedAt: try row.date("received_at"), uploadedBy: try row.text("uploaded_by"),
            answered: Int(try row.integer("answered")), questions: Int(try row.integer("questions")),
            media: Int(try row.integer("media")), simulated: try row.bool("simulated"),
            scores: StoredScores.decode(try row.optional("scores", row.text)),
            reviewState: try row.reviewState("review_state"), version: Int(try row.integer("version")))
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// The page's rows, limit + 1 of them; read backwards (nearest the row first) with `before`.
    func page(_ query: SubmissionQuery) -> SQLText {
        var sql = SQLText("SELECT \(Self.summaryColumns) FROM submission")
        filters(query, keyset: SubmissionKeyset(query), into: &sql)
        let descending = (query.order == .descending) == (query.before == nil)
        let direction = descending ? "DESC" : "ASC"
        sql.append(" ORDER BY \(Self.column(query.sort)) \(direction), seq \(direction) LIMIT \(query.limit + 1)")
        return sql
    }

    /// The page `rows` (from `page(query)`) make, with its cursors.
    static func page(_ rows: [SQLRow], of query: SubmissionQuery) throws -> SubmissionPage {
        let more = rows.count > query.limit
        func cursor(_ row: SQLRow?) throws -> String? {
            guard let row else { return nil }
            let column = Self.column(query.sort)
            let value: SubmissionQuery.Cursor.Value = query.sort.isDate ? .integer(try row.integer(column)) : .text(try row.text(column))
            return SubmissionQuery.Cursor(sort: query.sort, order: query.order, value: value, seq: try row.integer("seq")).encoded
        }
        if query.before != nil {
            // Fetched backwards from the row before which the page ends.
            let page = Array(rows.prefix(query.limit).reversed())
            return SubmissionPage(submissions: try page.map(summary), nextCursor: try cursor(page.last),
                                  previousCursor: more ? try cursor(page.first) : nil)
        }
        let page = Array(rows.prefix(query.limit))
        return SubmissionPage(submissions: try page.map(summary), nextCursor: more ? try cursor(page.last) : nil,
                              previousCursor: query.cursor != nil ? try cursor(page.first) : nil)
    }

    func count(_ query: SubmissionQuery) -> SQLText {
        // Counting has no order to keep: the date range may pick the index.
        var unsorted = query
        if query.before == nil { unsorted.sort = .uploaded }
        var sql = Self.count
        filters(unsorted, keyset: query.before.map { .before($0) }, into: &sql)
        return sql
    }

    /// Per template (`template_id`, `title`, `n`) and per UTC day (`day`, `n`).
    func counts(since start: Date, user: String?, by dates: SubmissionQuery.DateBasis) -> (templates: SQLText, days: SQLText, states: SQLText) {
        let time = dates == .uploaded ? "received_at" : "submitted_at"
        var condition = SQLText(" WHERE \(time) >= ")
        condition.bind(Self.seconds(start))
        if let user {
            condition.append(" AND technician = ")
            condition.bind(user)
        }
        var templates = SQLText("SELECT template_id, MAX(template_title) AS title, COUNT(*) AS n FROM submission")
        templates.append(condition)
        // Ties in the ids' byte order, whatever the database's locale.
        templates.append(" GROUP BY template_id ORDER BY n DESC, \(dialect.binary("template_id"))")
        var days = SQLText("SELECT \(time) / 86400 AS day, COUNT(*) AS n FROM submission")
        days.append(condition)
        days.append(" GROUP BY day ORDER BY day")
        // The review backlog is of every stored submission, not only the period's.
        var states = SQLText("SELECT review_state, COUNT(*) AS n FROM submission")
        if let user {
            states.append(" WHERE technician = ")
            states.bind(user)
        }
        states.append(" GROUP BY review_state")
        return (templates, days, states)
    }

    static func counts(templates: [SQLRow], days: [SQLRow], states: [SQLRow]) throws -> SubmissionCounts {
        let perState = Dictionary(try states.map { (try $0.reviewState("review_state"), Int(try $0.integer("n"))) },
                                  uniquingKeysWith: +)
        return SubmissionCounts(
            templates: try templates.map { row in
                SubmissionCounts.Template(templateID: try row.text("template_id"), templateTitle: try row.text("title"),
                                          count: Int(try row.integer("n")))
            },
            days: try days.map { row in
                SubmissionCounts.Day(day: Date(timeIntervalSince1970: TimeInterval(try row.integer("day") * 86_400)),
                                     count: Int(try row.integer("n")))
            },
            reviewStates: ReviewState.allCases.map { SubmissionCounts.State(reviewState: $0, count: perState[$0] ?? 0) })
    }

    func forms(of templateID: String, filters: StatisticsFilters) -> SQLText {
        var sql = SQLText("SELECT \(Self.summaryColumns) FROM submission WHERE template_id = ")
        sql.bind(templateID)
        if let user = filters.user {
            sql.append(" AND technician = ")
            sql.bind(user)
        }
        if let version = filters.version {
            sql.append(" AND template_version = ")
            sql.bind(version)
        }
        if let state = filters.reviewState {
            sql.append(" AND review_state = ")
            sql.bind(state.rawValue)
        }
        // Whole seconds on both sides (the parsers give whole seconds): the stored second,
        // rounded down, is in the range exactly when the submission time is.
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
        return sql
    }

    /// The technicians, one index seek each rather than a walk over every submission (`name`).
    static let users = SQLText("""
        WITH RECURSIVE technicians(name) AS (
            SELECT MIN(technician) FROM submission
            UNION ALL
            SELECT (SELECT MIN(technician) FROM submission WHERE technician > technicians.name) FROM technicians
            WHERE name IS NOT NULL
        )
        SELECT name FROM technicians WHERE name IS NOT NULL
        """)
    static let ids = SQLText("SELECT id FROM submission")
    static let unsummarizedIDs = SQLText("SELECT id, version FROM submission WHERE NOT summarized ORDER BY seq")

    /// The query's filters (and the keyset condition) as a WHERE clause.
    private func filters(_ query: SubmissionQuery, keyset: SubmissionKeyset?, into sql: inout SQLText) {
        var first = true
        func and(_ text: String) {
            sql.append((first ? " WHERE " : " AND ") + text)
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
        let time = query.dates == .submitted ? dialect.unindexed("submitted_at")
            : query.sort == .uploaded ? "received_at" : dialect.unindexed("received_at")
        if let from = query.from {
            and("\(time) >= ")
            sql.bind(Self.seconds(from))
        }
        if let before = query.until {
            and("\(time) < ")
            sql.bind(Self.seconds(before))
        }
        if query.hideSimulated { and("NOT \(dialect.unindexed("simulated"))") }
        if let state = query.reviewState {
            and("\(dialect.unindexed("review_state")) = ")
            sql.bind(state.rawValue)
        }
        if !query.words.isEmpty {
            and("")
            sql.append(dialect.searchCondition(query.words))
        }
        if let keyset {
            let position = keyset.cursor, below = keyset.isBelow(in: query.order)
            and("(\(Self.column(query.sort)), seq) \(below ? "<" : ">") (")
            switch position.value {
            case .integer(let number): sql.bind(number)
            case .text(let text): sql.bind(text)
            }
            sql.append(", ")
            sql.bind(position.seq)
            sql.append(")")
        }
    }
}

extension SQLText {
    /// Appends `other`, text and values.
    mutating func append(_ other: SQLText) {
        append(other.pieces[0])
        for (value, piece) in zip(other.values, other.pieces.dropFirst()) {
            bind(value)
            append(piece)
        }
    }
}
