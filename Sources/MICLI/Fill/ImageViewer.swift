import Foundation
import MIKit

/// `:img` in `mi fill`: opens a question's cached picture with `xdg-open` when there is a
/// display to show it on; otherwise says so and gives the path (to copy, or open elsewhere).
enum ImageViewer {
    /// What `:img` did, as the line to show.
    static func open(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let display = ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
        guard display else {
            return "No display to show the picture on (DISPLAY and WAYLAND_DISPLAY are not set): it is \(url.path)"
        }
        guard let opener = executable("xdg-open", path: environment["PATH"] ?? "/usr/bin:/bin") else {
            return "xdg-open is not installed, so the picture cannot be opened from here: it is \(url.path)"
        }
        let process = Process()
        process.executableURL = opener
        process.arguments = [url.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            // Not waited for: the viewer stays open while the questions go on.
            try process.run()
            return "Opened \(url.path) with xdg-open."
        } catch {
            return "xdg-open could not be started (\(error.localizedDescription)): the picture is \(url.path)"
        }
    }

    /// The first executable `name` in the colon-separated `path`.
    static func executable(_ name: String, path: String) -> URL? {
        path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
