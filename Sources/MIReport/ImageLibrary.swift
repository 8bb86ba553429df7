import Foundation

/// The photos (or question pictures) of one report, loaded once for both passes.
final class ImageLibrary {
    let folder: URL
    private var loaded: [String: Result<ReportImage, ImageProblem>] = [:]

    init(folder: URL) { self.folder = folder }

    func image(named name: String) -> Result<ReportImage, ImageProblem> {
        if let image = loaded[name] { return image }
        let image = ReportImage.load(folder.appendingPathComponent(name))
        loaded[name] = image
        return image
    }
}
