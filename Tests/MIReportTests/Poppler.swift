import Foundation
import TestSupport
import XCTest

/// poppler-utils (`pdfinfo`, `pdftotext`, `pdfimages`) read the PDFs back, as a user's viewer would.
enum Poppler {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let candidates = ["/usr/bin", "/usr/local/bin", "/bin"].map { URL(fileURLWithPath: $0).appendingPathComponent(tool) }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Failure(description: "\(tool) is not installed — apt-get install poppler-utils")
        }
        return try ToolRun.output(executable, arguments)
    }

    /// `pdfinfo`'s page count.
    static func pages(_ pdf: URL) throws -> Int {
        let info = try run("pdfinfo", [pdf.path])
        for line in info.split(separator: "\n") where line.hasPrefix("Pages:") {
            if let count = Int(line.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) { return count }
        }
        throw Failure(description: "pdfinfo printed no page count:\n\(info)")
    }

    /// The document's text with every run of white space made one space, so wrapped lines
    /// still match.
    static func text(_ pdf: URL) throws -> String {
        let text = try run("pdftotext", ["-enc", "UTF-8", pdf.path, "-"])
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The document's text as laid out (`pdftotext -layout`), each line's runs of white space
    /// made one space and the lines joined by " | ": a label and the value beside it read as
    /// "label value".
    static func layoutText(_ pdf: URL) throws -> String {
        let text = try run("pdftotext", ["-layout", "-enc", "UTF-8", pdf.path, "-"])
        return text.split(whereSeparator: \.isNewline)
            .map { $0.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ") }
            .filter { !$0.isEmpty }.joined(separator: " | ")
    }

    struct ImageEntry {
        var page: Int
        var width: Int
        var height: Int
        var encoding: String
    }

    /// `pdfimages -list`: one entry per image drawn.
    static func images(_ pdf: URL) throws -> [ImageEntry] {
        let listing = try run("pdfimages", ["-list", pdf.path])
        // page num type width height color comp bpc enc interp object ID ...
        return listing.split(separator: "\n").dropFirst(2).compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard columns.count >= 9, let page = Int(columns[0]), let width = Int(columns[3]), let height = Int(columns[4]),
                  columns[2] == "image" else { return nil }
            return ImageEntry(page: page, width: width, height: height, encoding: columns[8])
        }
    }
}
