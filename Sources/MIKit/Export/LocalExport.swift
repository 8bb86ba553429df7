import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `mi export`'s source: local form folders, read one at a time.
public struct LocalExportSource: ExportSource {
    public let store: Store
    public let locations: [FormLocation]

    public init(store: Store, locations: [FormLocation]) {
        self.store = store
        self.locations = locations
    }

    public var count: Int { locations.count }

    public func load(_ index: Int) throws -> ExportedForm {
        let location = locations[index]
        let (form, file) = try store.loadWithFile(location)
        return ExportedForm(json: file, form: form, mediaPaths: ExportedForm.mediaPaths(of: form, in: location.path))
    }
}

extension ExportedForm {
    /// The form's media files in `folder` (its form folder, local or stored on the server):
    /// each listed name that is a safe file name and a regular file there. A name that could
    /// climb out of the folder (`..`, `/`) or a missing file has no entry.
    public static func mediaPaths(of form: Form, in folder: String) -> [String: String] {
        var paths: [String: String] = [:]
        for name in ExportWriter.mediaNames(of: form) where SafeName.problem(name) == nil {
            let path = folder + "/" + name
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { paths[name] = path }
        }
        return paths
    }
}
