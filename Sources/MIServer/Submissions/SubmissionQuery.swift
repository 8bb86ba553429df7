import Foundation
import MIKit

/// Which submissions to list and in what order: the filters, the sort and the page. Engine
/// neutral; each repository turns it into its own query.
public struct SubmissionQuery: Sendable, Equatable {
    /// The column a page is ordered by; ties are broken by the order of storing.
    public enum Sort: String, Sendable, CaseIterable {
        /// When the server stored it (the default, newest first).
        case uploaded
        /// When the technician submitted it.
        case submitted
        /// The template's title.
        case template
        /// The technician's user name.
        case technician
        /// The form's name, in natural order (`NaturalOrder`: `sim-3-2` before `sim-3-12`).
        case formName

        /// A date (an integer of seconds) rather than a name.
        public var isDate: Bool { self == .uploaded || self == .submitted }

        /// Newest first for dates, A to Z for names.
        public var defaultOrder: Order { isDate ? .descending : .ascending }
    }

    public enum Order: String, Sendable, CaseIterable {
        case ascending = "asc"
        case descending = "desc"
    }

    /// Where a page starts: just after the row with this sort value and sequence number.
    public struct Cursor: Sendable, Equatable {
        public enum Value: Sendable, Equatable {
            case integer(Int64)
            case text(String)

            var isInteger: Bool {
                if case .integer = self { return true }
                return false
            }
        }
        public var sort: Sort
        public var order: Order
        public var value: Value
        public var seq: Int64

        public init(sort: Sort, order: Order, value: Value, seq: Int64) {
            self.sort = sort
            self.order = order
            self.value = value
            self.seq = seq
        }

        /// The opaque text handed to clients: base64url of `sort.order.seq.kind:value`.
        public var encoded: String {
            let valueText: String
            switch value {
            case .integer(let number): valueText = "i:\(number)"
            case .text(let text): valueText = "s:\(text)"
            }
            return Base64URL.encode(Data("\(sort.rawValue).\(order.rawValue).\(seq).\(valueText)".utf8))
        }

        /// Nil for anything `encoded` did not make.
        public init?(encoded text: String) {
            guard text.utf8.count <= 2048, let data = Base64URL.decode(text), let plain = String(data: data, encoding: .utf8) else { return nil }
            let fields = plain.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let sort = Sort(rawValue: String(fields[0])), let order = Order(rawValue: String(fields[1])),
                  let seq = Int64(fields[2]) else { return nil }
            let value = fields[3]
            if value.hasPrefix("i:"), let number = Int64(value.dropFirst(2)) {
                self.value = .integer(number)
            } else if value.hasPrefix("s:") {
                self.value = .text(String(value.dropFirst(2)))
            } else {
                return nil
            }
            self.sort = sort
            self.order = order
            self.seq = seq
        }
    }

    /// Which of a submission's days `from` and `until` select by (and the dashboard counts by).
    public enum DateBasis: String, Sendable, CaseIterable {
        /// When the server stored it (the default).
        case uploaded
        /// When the technician submitted it; a form without a submission time is left out.
        case submitted
    }

    public static let defaultLimit = 50
    public static let limits = 1...500

    /// Only this template id.
    public var template: String?
    /// Only this technician's forms (a technician's own session forces it).
    public var user: String?
    /// Which time `from` and `until` apply to.
    public var dates: DateBasis
    /// Uploaded (or with `dates` `.submitted`, submitted) at or after this instant.
    public var from: Date?
    /// Uploaded (or submitted) before this instant.
    public var until: Date?
    /// Leave out the forms `mi simulate` made.
    public var hideSimulated: Bool
    /// Only submissions whose review stands here.
    public var reviewState: ReviewState?
    /// Words that must each begin a word of the answers, comments or form name (accents ignored).
    public var words: [String]
    public var sort: Sort
    public var order: Order
    public var limit: Int
    /// The page after this row (a page's `nextCursor`).
    public var cursor: Cursor?
    /// The page before this row (a page's `previousCursor`), still in the query's order. A
    /// count with it counts the rows before it: the position of a page's first row.
    public var before: Cursor?

    public init(template: String? = nil, user: String? = nil, dates: DateBasis = .uploaded, from: Date? = nil,
                until: Date? = nil, hideSimulated: Bool = false, words: [String] = [], sort: Sort = .uploaded,
                order: Order? = nil, limit: Int = defaultLimit, cursor: Cursor? = nil, before: Cursor? = nil) {
        self.template = template
        self.user = user
        self.dates = dates
        self.from = from
        self.until = until
        self.hideSimulated = hideSimulated
        self.words = words
        self.sort = sort
        self.order = order ?? sort.defaultOrder
        self.limit = limit
        self.cursor = cursor
        self.before = before
    }

    /// The query of `GET /api/v1/submissions` and `/submissions` from their parameters (the
    /// last value of a repeated one wins); an empty filter or cursor counts as absent (a
    /// filter form sends its empty fields), an empty sort, order, limit, dates or simulated is refused.
    public init(parameters: [(name: String, value: String)]) throws(SubmissionQueryError) {
        var values: [String: String] = [:]
        for (name, value) in parameters where !value.isEmpty || ["sort", "order", "limit", "dates", "simulated"].contains(name) {
            values[name] = value
        }
        self.init()
        template = values["template"]
        user = values["user"]
        if let text = values["reviewState"] {
            guard let state = ReviewState(rawValue: text) else {
                throw .invalid(parameter: "reviewState", value: text, expected: ReviewState.allCases.map(\.rawValue).joined(separator: ", "))
            }
            reviewState = state
        }
        if let text = values["dates"] {
            guard let basis = DateBasis(rawValue: text) else {
                throw .invalid(parameter: "dates", value: text, expected: "uploaded or submitted")
            }
            dates = basis
        }
        if let text = values["simulated"] {
            guard ["hide", "show"].contains(text) else { throw .invalid(parameter: "simulated", value: text, expected: "hide or show") }
            hideSimulated = text == "hide"
        }
        if let text = values["from"] { from = try Self.day(text, parameter: "from", endOfDay: false) }
        if let text = values["to"] { until = try Self.day(text, parameter: "to", endOfDay: true) }
        if let from, let before = until, before <= from {
            throw .invalid(parameter: "to", value: values["to"] ?? "", expected: "a day on or after `from`")
        }
        if let text = values["q"] {
            guard text.utf8.count <= 500 else {
                throw .invalid(parameter: "q", value: String(text.prefix(40)) + "…", expected: "at most 500 bytes of words")
            }
            words = Self.words(text)
        }
        if let text = values["sort"] {
            guard let sort = Sort(rawValue: text) else {
                throw .invalid(parameter: "sort", value: text, expected: Sort.allCases.map(\.rawValue).joined(separator: ", "))
            }
            self.sort = sort
        }
        if let text = values["order"] {
            guard let order = Order(rawValue: text) else { throw .invalid(parameter: "order", value: text, expected: "asc or desc") }
            self.order = order
        } else {
            order = sort.defaultOrder
        }
        if let text = values["limit"] {
            guard let limit = Int(text), Self.limits.contains(limit) else {
                throw .invalid(parameter: "limit", value: text, expected: "a whole number from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
            }
            self.limit = limit
        }
        if let text = values["cursor"] { cursor = try Self.cursor(text, parameter: "cursor", sort: sort, order: order) }
        if let text = values["before"] {
            guard cursor == nil else {
                throw .invalid(parameter: "before", value: text, expected: "either `cursor` or `before`, not both")
            }
            before = try Self.cursor(text, parameter: "before", sort: sort, order: order)
        }
    }

    private static func cursor(_ text: String, parameter: String, sort: Sort, order: Order) throws(SubmissionQueryError) -> Cursor {
        let kind = parameter == "cursor" ? "nextCursor" : "previousCursor"
        guard let cursor = Cursor(encoded: text) else {
            throw .invalid(parameter: parameter, value: text, expected: "the \(kind) of an earlier page")
        }
        guard cursor.sort == sort, cursor.order == order, cursor.value.isInteger == sort.isDate else {
            throw .invalid(parameter: parameter, value: text, expected: "a \(kind) of a page with the same sort and order")
        }
        return cursor
    }

    /// The words of a search: runs of letters and digits (what the full-text index keeps).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A `from`/`to` parameter, read by MIKit's one date-filter parser (`UTCDay`).
    static func day(_ text: String, parameter: String, endOfDay: Bool) throws(SubmissionQueryError) -> Date {
        do {
            return try UTCDay.parse(text, parameter: parameter, endOfDay: endOfDay)
        } catch {
            switch error {
            case .invalid(let parameter, let value, let expected): throw .invalid(parameter: parameter, value: value, expected: expected)
            }
        }
    }
}

/// A listing's parameters that cannot be understood.
public enum SubmissionQueryError: ClassifiedError, Equatable {
    /// `parameter` has `value`, which is not what it takes.
    case invalid(parameter: String, value: String, expected: String)

    public var failureClass: FailureClass { .usage }
    public var code: String { "invalid-query-parameter" }
    public var errorDescription: String? {
        switch self {
        case .invalid(let parameter, let value, let expected):
            return "parameter `\(parameter)` is \"\(SafeName.printable(value))\" — give \(expected)"
        }
    }
}

extension SubmissionQuery {
    /// The listing's query from a request's query string, for the API and the office alike:
    /// a bad parameter is 400 naming it; a technician's query is restricted to their own forms
    /// whatever `user` says.
    static func visible(to session: SessionClaims, query: String?) throws -> SubmissionQuery {
        var result: SubmissionQuery
        do {
            result = try SubmissionQuery(parameters: FormQuery.parameters(query))
        } catch {
            throw SubmissionRefusal(.malformed, error.errorDescription ?? error.code)
        }
        if session.role != .foreman { result.user = session.sub }
        return result
    }
}
