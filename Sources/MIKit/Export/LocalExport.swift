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
        var paths: [String: String] = [:]
        for name in ExportWriter.mediaNames(of: form) where SafeName.problem(name) == nil {
            let path = location.path + "/" + name
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { paths[name] = path }
        }
        return ExportedForm(json: file, form: form, mediaPaths: paths)
    }
}
