/// Where the next thing goes: the page number and the vertical position on it, inside the
/// margins and above the footer. While a block is measured the cursor starts at 0 and has no
/// bottom, so its final `y` is the block's height.
struct PageCursor {
    static let margin = 48.0
    static let footerHeight = 30.0

    let pageWidth: Double
    let pageHeight: Double
    private(set) var page = 1
    var y: Double
    var bottom: Double
    /// How far nested content (a group's, a repeat instance's) stands in from the left margin.
    var inset = 0.0

    init(pageWidth: Double, pageHeight: Double) {
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        y = Self.margin
        bottom = pageHeight - Self.margin - Self.footerHeight
    }

    var left: Double { Self.margin + inset }
    var width: Double { pageWidth - 2 * Self.margin - inset }
    /// The page's own left margin and width, whatever the inset (the footer's).
    var pageLeft: Double { Self.margin }
    var fullWidth: Double { pageWidth - 2 * Self.margin }
    var top: Double { Self.margin }
    /// The height a page offers from top to bottom.
    var pageContentHeight: Double { pageHeight - 2 * Self.margin - Self.footerHeight }
    /// Nothing has been placed on this page yet: breaking again would not help.
    var atTop: Bool { y <= top + 0.5 }
    /// Where the footer's rule is drawn.
    var footerTop: Double { pageHeight - Self.margin - Self.footerHeight + 10 }

    func fits(_ height: Double) -> Bool { y + height <= bottom + 0.01 }

    mutating func nextPage() {
        page += 1
        y = top
    }

    /// A cursor for measuring: from 0, without a bottom.
    func measuring() -> PageCursor {
        var copy = self
        copy.y = 0
        copy.bottom = .infinity
        return copy
    }
}
