import Foundation

/// A fresh folder under the system's temporary directory, removed (with everything in it)
/// when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init(prefix: String = "mikit-test") throws {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard made != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base])
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    /// A path inside the folder.
    public func path(_ components: String...) -> URL {
        components.reduce(url) { $0.appendingPathComponent($1) }
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Small file-system helpers for assertions.
public enum Files {
    /// The names in `folder`, sorted; empty when the folder is missing.
    public static func names(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    public static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// What lies in mi-server's `incoming/` besides the servers' own (empty) receiving folders
    /// and their `<instance>.lock` files: uploads being received or left by a server that died,
    /// as `<instance>/<name>`, and anything else by its own name.
    public static func uploadsBeingReceived(in incoming: URL) -> [String] {
        let names = names(in: incoming)
        var found: [String] = []
        for name in names where !name.hasSuffix(".lock") {
            if names.contains(name + ".lock") {
                found += Files.names(in: incoming.appendingPathComponent(name)).map { "\(name)/\($0)" }
            } else {
                found.append(name)
            }
        }
        return found
    }

    public static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Writes `text` (UTF-8) to `url`, creating the parent folders.
    public static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }

    public static func write(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// Every path below `folder` whose last component starts with `prefix`.
    public static func find(prefix: String, under folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if (relative as NSString).lastPathComponent.hasPrefix(prefix) { found.append(relative) }
        }
        return found.sorted()
    }
}
