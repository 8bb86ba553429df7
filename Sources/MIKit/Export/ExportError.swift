import Foundation

/// What can go wrong in an export; every message says what to do next.
public enum ExportError: ClassifiedError, Sendable, Equatable {
    /// The temporary file for the zip's directory (or the output's temporary file) could not be made or used.
    case temporaryFile(folder: String, reason: String)
    /// The output file could not be written or put in place.
    case output(path: String, reason: String)
    /// `--format` or `format=` names no format.
    case unknownFormat(String)

    public var failureClass: FailureClass {
        switch self {
        case .temporaryFile, .output: return .refused
        case .unknownFormat: return .usage
        }
    }

    public var code: String {
        switch self {
        case .temporaryFile: return "export-temporary-file"
        case .output: return "export-output"
        case .unknownFormat: return "export-format"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .temporaryFile(let folder, let reason):
            return "cannot use a temporary file in \(folder): \(reason) — check its free space and permissions (or set TMPDIR)"
        case .output(let path, let reason):
            return "cannot write the export \(path): \(reason) — check the folder's free space and permissions; no partial file was left"
        case .unknownFormat(let name) where name.lowercased() == "csv":
            return "\"\(SafeName.printable(name))\" is not an export format: the CSV comes in the zip — use zip (the default; <template>.csv and one <template>-<repeat>.csv per repeat), jsonl or geojson"
        case .unknownFormat(let name):
            return "\"\(SafeName.printable(name))\" is not an export format — use zip, jsonl or geojson"
        }
    }
}
