import Foundation
import MIKit

/// The office's files, embedded in the binary from `Office/Assets` (SwiftPM's `embedInCode`), so
/// mi-server stays one file to deploy and works with no internet access. One line per file: a
/// new view or asset is added here and nowhere else.
enum OfficeAssets {
    /// Mustache views by name (`layout` wraps every page).
    static let views: [String: [UInt8]] = [
        "layout": PackageResources.layout_mustache,
        "login": PackageResources.login_mustache,
        "error": PackageResources.error_mustache,
        "submission": PackageResources.submission_mustache,
        "submission-node": PackageResources.submission_node_mustache,
        "submission-question": PackageResources.submission_question_mustache,
        "review-panel": PackageResources.review_panel_mustache,
        "submissions": PackageResources.submissions_mustache,
        "dashboard": PackageResources.dashboard_mustache,
        "templates": PackageResources.templates_mustache,
        "editor": PackageResources.editor_mustache,
        "stats": PackageResources.stats_mustache,
        "stats-question": PackageResources.stats_question_mustache,
        "stats-numbers": PackageResources.stats_numbers_mustache,
        "stats-values": PackageResources.stats_values_mustache,
        "stats-repeats": PackageResources.stats_repeats_mustache,
        "chart-bars": PackageResources.chart_bars_mustache,
        "chart-columns": PackageResources.chart_columns_mustache,
        "chart-line": PackageResources.chart_line_mustache,
        "chart-points": PackageResources.chart_points_mustache,
        "audit": PackageResources.audit_mustache,
    ]

    /// Files served at `/static/{name}`.
    static let statics: [String: StaticAsset] = [
        "office.css": StaticAsset(bytes: PackageResources.office_css, contentType: "text/css; charset=utf-8"),
        "editor.js": StaticAsset(bytes: PackageResources.editor_js, contentType: "text/javascript; charset=utf-8"),
    ]
}

/// One file served at `/static/{name}`, with a strong ETag from its content.
struct StaticAsset: Sendable {
    let bytes: [UInt8]
    let contentType: String
    let etag: String

    init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        self.etag = "\"" + String(FileDigest.sha256(of: Data(bytes)).prefix(16)) + "\""
    }
}
