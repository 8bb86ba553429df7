import MIKit

/// Where a page of the submissions listing starts: after a row, or (read backwards) before
/// one. Both repositories turn it into the same row-value comparison.
enum SubmissionKeyset {
    case after(SubmissionQuery.Cursor)
    case before(SubmissionQuery.Cursor)

    /// The query's own start: before its `before` row (a previous page), else after its
    /// `cursor` row (a next page); nil for the first page.
    init?(_ query: SubmissionQuery) {
        if let before = query.before { self = .before(before) } else if let cursor = query.cursor { self = .after(cursor) } else { return nil }
    }

    var cursor: SubmissionQuery.Cursor {
        switch self {
        case .after(let cursor), .before(let cursor): return cursor
        }
    }

    /// Whether the page's rows sort below the cursor's row: after a row in descending order
    /// is below it; before it, above it.
    func isBelow(in order: SubmissionQuery.Order) -> Bool {
        let after: Bool
        switch self {
        case .after: after = true
        case .before: after = false
        }
        return (order == .descending) == after
    }
}
