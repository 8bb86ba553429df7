import Foundation
import MIKit

/// A question's media: photos as thumbnails, the other files listed with their sizes.
extension ReportComposer {
    func mediaPart(_ names: [String]) {
        var photos: [(name: String, image: ReportImage, bytes: Int64)] = []
        var lines: [(text: String, style: TextStyle)] = []
        for name in names {
            if let problem = SafeName.problem(name) {
                lines.append(("unsafe media name \(SafeName.printable(name)): \(problem)", .warning))
                continue
            }
            let url = folder.appendingPathComponent(name)
            let bytes: Int64
            switch Self.fileSize(url) {
            case .missing:
                lines.append(("missing: \(name)", .warning))
                continue
            case .notAFile:
                lines.append(("not a regular file: \(name)", .warning))
                continue
            case .file(let size):
                bytes = size
            }
            let size = ByteCount.string(bytes)
            switch MediaKind(extension: url.pathExtension) {
            case .photo?:
                switch images.image(named: name) {
                case .success(let image): photos.append((name, image, bytes))
                case .failure(let problem): lines.append(("▣ \(name) (\(size)) — \(problem.reason)", .body))
                }
            case .video?: lines.append(("▶ \(name) (\(size), video)", .body))
            case .audio?: lines.append(("♪ \(name) (\(size), audio)", .body))
            case nil: lines.append(("\(name) (\(size))", .body))
            }
        }
        if !photos.isEmpty { thumbnails(photos) }
        for line in lines { paragraph(line.text, style: line.style, indent: Self.indent, after: 2) }
    }

    /// Photos as thumbnails in rows, each scaled to fit its box, its name and size below.
    func thumbnails(_ photos: [(name: String, image: ReportImage, bytes: Int64)]) {
        let gap = 12.0
        let x = cursor.left + Self.indent
        let perRow = max(1, Int((cursor.width - Self.indent + gap) / (Self.thumbnailWidth + gap)))
        var start = 0
        while start < photos.count {
            let row = photos[start..<min(start + perRow, photos.count)]
            let boxes = row.map { photo -> (width: Double, height: Double) in
                let scale = min(Self.thumbnailWidth / Double(photo.image.pixelWidth),
                                Self.thumbnailHeight / Double(photo.image.pixelHeight))
                return (Double(photo.image.pixelWidth) * scale, Double(photo.image.pixelHeight) * scale)
            }
            let captions = row.map { photo in
                canvas.text("\(photo.name) (\(ByteCount.string(photo.bytes)))", style: .note, width: Self.thumbnailWidth)
            }
            let imageHeight = boxes.map(\.height).max() ?? 0
            let captionHeight = captions.compactMap { $0?.height }.max() ?? 0
            let rowHeight = imageHeight + 3 + captionHeight + 8
            room(rowHeight)
            if !measuring {
                for (offset, photo) in row.enumerated() {
                    let box = boxes[offset]
                    let left = x + Double(offset) * (Self.thumbnailWidth + gap)
                    canvas.draw(photo.image, x: left, y: cursor.y, width: box.width, height: box.height)
                    canvas.strokeRectangle(x: left, y: cursor.y, width: box.width, height: box.height, gray: 0.6, lineWidth: 0.4)
                    if let caption = captions[offset] { canvas.draw(caption, x: left, y: cursor.y + imageHeight + 3) }
                }
            }
            cursor.y += rowHeight
            start += perRow
        }
    }

    /// The picture a question shows, under its text; a note in its place when it cannot be drawn.
    func questionPicture(_ name: String) {
        let result: Result<ReportImage, ImageProblem>?
        if SafeName.problem(name) != nil {
            result = nil
        } else if let pictures, case .file = Self.fileSize(pictures.folder.appendingPathComponent(name)) {
            result = pictures.image(named: name)
        } else {
            result = nil
        }
        switch result {
        case .success(let image)?:
            let scale = min(Self.pictureWidth / Double(image.pixelWidth), Self.pictureHeight / Double(image.pixelHeight), 1)
            let (width, height) = (Double(image.pixelWidth) * scale, Double(image.pixelHeight) * scale)
            room(height + 6)
            if !measuring {
                canvas.draw(image, x: cursor.left + Self.indent, y: cursor.y, width: width, height: height)
            }
            cursor.y += height + 6
        case .failure(let problem)?:
            paragraph("picture \(name): \(problem.reason)", style: .warning, indent: Self.indent, after: 2)
        case nil:
            paragraph("picture \(SafeName.printable(name)) not available (not in the template cache — `mi templates` downloads it)",
                      style: .warning, indent: Self.indent, after: 2)
        }
    }

    /// A question's picture fits this box (points), never enlarged.
    static let pictureWidth = 180.0
    static let pictureHeight = 135.0

    enum FileCheck { case missing, notAFile, file(Int64) }

    /// A media file as it is on disk. Symbolic links are not followed: media never come from
    /// outside the form's folder.
    static func fileSize(_ url: URL) -> FileCheck {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return .missing }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else { return .notAFile }
        return .file((attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }
}
