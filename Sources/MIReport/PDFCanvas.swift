import CCairo
import Foundation
import MIKit

/// A font and colour for text.
struct TextStyle {
    var font: String
    var gray: Double = 0
    var red: Bool = false

    static let family = "DejaVu Sans,Sans"
    static let title = TextStyle(font: "\(family) Bold 16")
    static let heading = TextStyle(font: "\(family) Bold 12")
    static let question = TextStyle(font: "\(family) Bold 10.5")
    static let body = TextStyle(font: "\(family) 10")
    static let label = TextStyle(font: "\(family) Bold 10")
    static let comment = TextStyle(font: "\(family) Italic 10")
    static let note = TextStyle(font: "\(family) 8.5", gray: 0.4)
    static let cell = TextStyle(font: "\(family) 9")
    static let cellHeader = TextStyle(font: "\(family) Bold 9")
    static let mutedCell = TextStyle(font: "\(family) Italic 9", gray: 0.45)
    static let footer = TextStyle(font: "\(family) 8", gray: 0.35)
    static let warning = TextStyle(font: "\(family) Bold 10", red: true)
}

/// A paragraph laid out by pango for one width: its lines can be drawn one by one, so a long
/// paragraph can run over a page break.
final class TextBlock {
    struct Line {
        /// Top of the line, from the top of the paragraph.
        var top: Double
        var height: Double
        /// Baseline, from the top of the line.
        var baseline: Double
        var x: Double
    }

    fileprivate let layout: OpaquePointer
    let style: TextStyle
    private(set) var lines: [Line] = []
    /// The widest line's width.
    private(set) var width: Double = 0

    var height: Double { lines.last.map { $0.top + $0.height } ?? 0 }

    fileprivate init(layout: OpaquePointer, style: TextStyle) {
        self.layout = layout
        self.style = style
        let scale = Double(mi_pango_scale())
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        width = Double(logical.width) / scale
        guard let iterator = pango_layout_get_iter(layout) else { return }
        defer { pango_layout_iter_free(iterator) }
        repeat {
            pango_layout_iter_get_line_extents(iterator, &ink, &logical)
            let baseline = Double(pango_layout_iter_get_baseline(iterator)) / scale
            let top = Double(logical.y) / scale
            lines.append(Line(top: top, height: Double(logical.height) / scale, baseline: baseline - top,
                              x: Double(logical.x) / scale))
        } while pango_layout_iter_next_line(iterator) != 0
    }

    deinit { mi_pango_layout_release(layout) }
}

/// Collects the bytes cairo's PDF surface writes.
final class PDFSink {
    var data = Data()
}

/// One cairo PDF surface and its drawing context: text through pango, lines, shaded
/// rectangles and images. Units are PDF points, the origin at the top left of the page.
final class PDFCanvas {
    let width: Double
    let height: Double
    private let surface: OpaquePointer
    private let context: OpaquePointer
    /// Kept alive for cairo's write callback; nil discards the output (a counting pass).
    private let sink: PDFSink?

    init(paper: Paper, sink: PDFSink?) throws {
        (width, height) = paper.size
        self.sink = sink
        let closure = sink.map { Unmanaged.passUnretained($0).toOpaque() }
        let created: OpaquePointer? = if sink == nil {
            cairo_pdf_surface_create_for_stream(nil, nil, width, height)
        } else {
            cairo_pdf_surface_create_for_stream({ closure, bytes, length in
                guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<PDFSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
                return CAIRO_STATUS_SUCCESS
            }, closure, width, height)
        }
        guard let created else { throw ReportError.rendering("cairo could not create a PDF surface") }
        let status = cairo_surface_status(created)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(created)
            throw ReportError.rendering(Self.describe(status))
        }
        guard let context = cairo_create(created) else {
            cairo_surface_destroy(created)
            throw ReportError.rendering("cairo could not create a drawing context")
        }
        surface = created
        self.context = context
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// The document's title and author in the PDF's metadata.
    func setMetadata(title: String, author: String) {
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_AUTHOR, author)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "MI")
    }

    // MARK: - Text

    /// Lays `text` out in `style`, wrapped at `width` points (between words, or inside a word
    /// longer than a line).
    func text(_ text: String, style: TextStyle, width: Double?) -> TextBlock? {
        guard let layout = pango_cairo_create_layout(context) else { return nil }
        // Sizes are in points: pango's default is 96 dpi.
        pango_cairo_context_set_resolution(pango_layout_get_context(layout), 72)
        pango_layout_context_changed(layout)
        if let description = pango_font_description_from_string(style.font) {
            pango_layout_set_font_description(layout, description)
            pango_font_description_free(description)
        }
        if let width {
            pango_layout_set_width(layout, Int32(max(1, width) * Double(mi_pango_scale())))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        }
        // Text from a form may hold control characters (written by another tool): shown escaped.
        pango_layout_set_text(layout, DisplayText.escaped(text, keepingNewlines: true), -1)
        return TextBlock(layout: layout, style: style)
    }

    /// Draws line `index` of `block` with the top of the line at `y`.
    func draw(_ block: TextBlock, line index: Int, x: Double, y: Double) {
        guard block.lines.indices.contains(index),
              let line = pango_layout_get_line_readonly(block.layout, Int32(index)) else { return }
        let metrics = block.lines[index]
        setColor(block.style)
        cairo_move_to(context, x + metrics.x, y + metrics.baseline)
        pango_cairo_show_layout_line(context, line)
    }

    /// Draws every line of `block` with its top at `y`.
    func draw(_ block: TextBlock, x: Double, y: Double) {
        for (index, line) in block.lines.enumerated() { draw(block, line: index, x: x, y: y + line.top) }
    }

    private func setColor(_ style: TextStyle) {
        if style.red { cairo_set_source_rgb(context, 0.75, 0.05, 0.05) }
        else { cairo_set_source_rgb(context, style.gray, style.gray, style.gray) }
    }

    // MARK: - Shapes

    func fill(x: Double, y: Double, width: Double, height: Double, gray: Double) {
        cairo_set_source_rgb(context, gray, gray, gray)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
    }

    func strokeRectangle(x: Double, y: Double, width: Double, height: Double, gray: Double = 0, lineWidth: Double = 0.6) {
        cairo_set_source_rgb(context, gray, gray, gray)
        cairo_set_line_width(context, lineWidth)
        cairo_rectangle(context, x, y, width, height)
        cairo_stroke(context)
    }

    func line(from start: (x: Double, y: Double), to end: (x: Double, y: Double), gray: Double = 0, lineWidth: Double = 0.6) {
        cairo_set_source_rgb(context, gray, gray, gray)
        cairo_set_line_width(context, lineWidth)
        cairo_move_to(context, start.x, start.y)
        cairo_line_to(context, end.x, end.y)
        cairo_stroke(context)
    }

    /// Paints `image` scaled into the box at (x, y) of the given size.
    func draw(_ image: ReportImage, x: Double, y: Double, width: Double, height: Double) {
        guard image.pixelWidth > 0, image.pixelHeight > 0 else { return }
        cairo_save(context)
        cairo_translate(context, x, y)
        cairo_scale(context, width / Double(image.pixelWidth), height / Double(image.pixelHeight))
        cairo_set_source_surface(context, image.surface, 0, 0)
        cairo_paint(context)
        cairo_restore(context)
    }

    // MARK: - Pages

    func showPage() { cairo_show_page(context) }

    /// Ends the document: cairo writes the last page and the PDF's trailer to the sink.
    func finish() throws {
        let drawing = cairo_status(context)
        guard drawing == CAIRO_STATUS_SUCCESS else { throw ReportError.rendering(Self.describe(drawing)) }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw ReportError.rendering(Self.describe(status)) }
    }

    static func describe(_ status: cairo_status_t) -> String {
        cairo_status_to_string(status).map { String(cString: $0) } ?? "cairo error \(status.rawValue)"
    }
}
