import Foundation
import MIKit

/// The printable PDF of a form: a header, one block per question (answer, comment, photos as
/// thumbnails, other media listed), the foreman's comments and the audit trail, "Page N of M"
/// and the form's id in every footer. Drawn with cairo's PDF surface and pango.
public struct FormReport: Sendable {
    public var form: Form
    /// The form's folder, where its media files are.
    public var formFolder: URL
    public var paper: Paper
    /// The zone the dates are printed in.
    public var timeZone: TimeZone
    /// The folder of the pictures the template's questions show (the template cache's
    /// `.templates/<id>/`, or the server's `<TemplatesDirectory>/<id>/`); nil when there is none.
    public var picturesFolder: URL?

    public init(form: Form, formFolder: URL, paper: Paper = .a4, timeZone: TimeZone = .current, picturesFolder: URL? = nil) {
        self.form = form
        self.formFolder = formFolder
        self.paper = paper
        self.timeZone = timeZone
        self.picturesFolder = picturesFolder
    }

    /// Writes the PDF to `url`, replacing the file atomically: a reader never sees half a PDF.
    public func write(to url: URL) throws {
        try Self.checkDestination(url)
        let data = try render()
        do {
            try DurableFile.write(data, to: url)
        } catch StoreError.io(_, _, let reason) {
            throw ReportError.cannotWrite(path: url.path, reason: reason)
        } catch {
            throw ReportError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// The PDF's bytes. Laid out twice: the first pass counts the pages for the footers.
    public func render() throws -> Data {
        let images = ImageLibrary(folder: formFolder)
        let pictures = picturesFolder.map(ImageLibrary.init(folder:))
        let counting = try PDFCanvas(paper: paper, sink: nil)
        let pages = composer(on: counting, images: images, pictures: pictures, totalPages: nil).compose()
        let sink = PDFSink()
        let canvas = try PDFCanvas(paper: paper, sink: sink)
        canvas.setMetadata(title: "\(form.template.title) — \(form.name)", author: form.user)
        _ = composer(on: canvas, images: images, pictures: pictures, totalPages: pages).compose()
        try canvas.finish()
        return sink.data
    }

    private func composer(on canvas: PDFCanvas, images: ImageLibrary, pictures: ImageLibrary?, totalPages: Int?) -> ReportComposer {
        ReportComposer(form: form, folder: formFolder, canvas: canvas, images: images, pictures: pictures,
                       totalPages: totalPages, timeZone: timeZone)
    }

    /// Fails early, before any layout, when the PDF cannot go where it was asked to.
    private static func checkDestination(_ url: URL) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw ReportError.cannotWrite(path: url.path, reason: "it is a folder")
        }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw ReportError.cannotWrite(path: url.path, reason: "the folder \(folder.path) does not exist")
        }
        guard isFolder.boolValue else {
            throw ReportError.cannotWrite(path: url.path, reason: "\(folder.path) is not a folder")
        }
    }
}
