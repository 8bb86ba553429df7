import CCairo
import Foundation

/// A photo ready to paint: a cairo image surface and its size in pixels.
final class ReportImage {
    let surface: OpaquePointer
    let pixelWidth: Int
    let pixelHeight: Int

    /// PNGs are scaled down to at most this many pixels on the longer side once loaded: plenty
    /// for a thumbnail at print resolution, and the PDF stays small.
    static let maximumPNGPixels = 900

    private init(surface: OpaquePointer) {
        self.surface = surface
        pixelWidth = Int(cairo_image_surface_get_width(surface))
        pixelHeight = Int(cairo_image_surface_get_height(surface))
    }

    deinit { cairo_surface_destroy(surface) }

    /// Loads a JPEG or PNG file; the error says why it cannot be shown.
    static func load(_ url: URL) -> Result<ReportImage, ImageProblem> {
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": return jpeg(url)
        case "png": return png(url)
        default: return .failure(ImageProblem("\(url.pathExtension.uppercased()) photos cannot be embedded"))
        }
    }

    /// A JPEG is embedded as it is (DCTDecode in the PDF), never decoded and re-encoded: the
    /// surface is blank and carries the file as its JPEG MIME data, which cairo's PDF backend
    /// writes in place of the pixels. The surface only has to have the JPEG's size.
    static func jpeg(_ url: URL) -> Result<ReportImage, ImageProblem> {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            return .failure(ImageProblem("cannot be read (\(error.localizedDescription))"))
        }
        guard let size = JPEGHeader.size(of: data) else {
            return .failure(ImageProblem("is not a JPEG image cairo can embed"))
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(size.width), Int32(size.height)) else {
            return .failure(ImageProblem("cairo could not create an image surface"))
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return .failure(ImageProblem("\(size.width) × \(size.height) pixels cannot be embedded (\(PDFCanvas.describe(status)))"))
        }
        let attached = data.withUnsafeBytes { buffer -> cairo_status_t in
            guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return CAIRO_STATUS_NULL_POINTER }
            return mi_cairo_surface_attach_jpeg(surface, base, UInt(buffer.count))
        }
        guard attached == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return .failure(ImageProblem("cannot be embedded (\(PDFCanvas.describe(attached)))"))
        }
        return .success(ReportImage(surface: surface))
    }

    /// A PNG is decoded by cairo and scaled down to thumbnail size.
    static func png(_ url: URL) -> Result<ReportImage, ImageProblem> {
        guard let loaded = cairo_image_surface_create_from_png(url.path) else {
            return .failure(ImageProblem("cairo could not read it"))
        }
        let status = cairo_surface_status(loaded)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(loaded)
            return .failure(ImageProblem("is not a PNG image cairo can read (\(PDFCanvas.describe(status)))"))
        }
        let width = Int(cairo_image_surface_get_width(loaded))
        let height = Int(cairo_image_surface_get_height(loaded))
        let longer = max(width, height)
        guard longer > maximumPNGPixels else { return .success(ReportImage(surface: loaded)) }
        defer { cairo_surface_destroy(loaded) }
        let scale = Double(maximumPNGPixels) / Double(longer)
        let targetWidth = max(1, Int((Double(width) * scale).rounded()))
        let targetHeight = max(1, Int((Double(height) * scale).rounded()))
        guard let small = cairo_image_surface_create(cairo_image_surface_get_format(loaded), Int32(targetWidth), Int32(targetHeight)),
              cairo_surface_status(small) == CAIRO_STATUS_SUCCESS else {
            return .failure(ImageProblem("cairo could not scale it down"))
        }
        if let context = cairo_create(small) {
            cairo_scale(context, scale, scale)
            cairo_set_source_surface(context, loaded, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
            cairo_paint(context)
            cairo_destroy(context)
        }
        return .success(ReportImage(surface: small))
    }
}

/// Why a photo cannot be shown; printed next to its name.
struct ImageProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The pixel size of a JPEG, from its start-of-frame marker.
enum JPEGHeader {
    static func size(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(1 << 20))
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1  // fill byte
                continue
            case 0x01, 0xD0...0xD8:
                index += 2  // markers without a length
                continue
            case 0xD9, 0xDA:
                return nil  // end of image or start of scan before any frame header
            default:
                break
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame {
                guard length >= 7, index + 8 < bytes.count else { return nil }
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                guard width > 0, height > 0 else { return nil }
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }
}
