import CMISystem
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe file operations: a write lands whole or not at all, and survives a power cut
/// once the call returns.
public enum DurableFile {
    /// Prefix of every temporary file the store writes; listings skip these names, and the
    /// sweep at the start of a command removes the ones a killed process left behind.
    public static let temporaryPrefix = ".mi-tmp-"

    /// A fresh temporary name, `.mi-tmp-<pid>-<uuid>`: the writer's process id lets the sweep
    /// tell a dead writer's leftover from a file a live process is still writing.
    public static func temporaryName() -> String {
        "\(temporaryPrefix)\(getpid())-\(UUID().uuidString)"
    }

    /// The process that wrote a temporary file of this name, or nil when the name carries none
    /// (not a temporary name, or one written before names carried the pid).
    public static func writer(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix(temporaryPrefix) else { return nil }
        let rest = name.dropFirst(temporaryPrefix.count)
        guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { return nil }
        return pid
    }

    /// Whether a temporary file of this name is a leftover: its writer is gone (or unknown).
    /// `kill(pid, 0)` fails with ESRCH only when no such process exists; EPERM means it lives.
    public static func isLeftover(temporary name: String) -> Bool {
        guard name.hasPrefix(temporaryPrefix) else { return false }
        guard let pid = writer(ofTemporary: name) else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Removes the leftovers of dead writers among the temporary entries directly in `folder`
    /// (files or folders); returns their names.
    @discardableResult
    public static func removeLeftovers(in folder: URL) -> [String] {
        removeLeftovers(in: folder, among: directoryNames(folder))
    }

    /// The same, among `names` already read from `folder`.
    /// (`folder` is made only when there is something to remove: listings call this per form.)
    static func removeLeftovers(in folder: @autoclosure () -> URL, among names: [String]) -> [String] {
        let leftovers = names.filter { isLeftover(temporary: $0) }.sorted()
        for name in leftovers { try? FileManager.default.removeItem(at: folder().appendingPathComponent(name)) }
        return leftovers
    }

    /// Every name in `folder` (hidden ones too; not `.` and `..`), read with one `readdir` pass;
    /// empty when the folder is missing or unreadable.
    static func directoryNames(_ folder: URL) -> [String] {
        directoryNames(atPath: folder.path)
    }

    static func directoryNames(atPath folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole file at `path`, read with one `read` per block into a buffer of its size.
    /// Listings read thousands of form files: this costs the system calls `cat` makes and no more.
    public static func contents(atPath path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(path: path, code: errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ReadError(path: path, code: errno) }
        var data = Data(count: max(Int(status.st_size), 0) + 1)
        var length = 0
        while true {
            if length == data.count { data.count += max(data.count, 4096) }
            let count = data.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + length, buffer.count - length)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(path: path, code: errno)
            }
            if count == 0 { break }
            length += count
        }
        data.count = length
        return data
    }

    /// A file that could not be read: the path and the system's reason.
    public struct ReadError: Error, LocalizedError, Sendable {
        public var path: String
        public var code: Int32
        public var errorDescription: String? { "cannot read \(path): \(String(cString: strerror(code)))" }
    }

    /// Writes `data` to `url`: a temporary file in the same folder, fsync, rename over `url`,
    /// fsync of the folder.
    /// `permissions` apply from the moment the file exists (0o600 for secrets).
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o644) throws {
        let temporary = try writeTemporary(data, beside: url, permissions: permissions)
        guard rename(temporary.path, url.path) == 0 else {
            let failure = error("replace", url)
            unlink(temporary.path)
            throw failure
        }
        try syncFolder(url.deletingLastPathComponent())
    }

    /// Writes `data` as a new file `url`, never replacing one: a temporary file in the same
    /// folder, fsync, rename without replacing, fsync of the folder. Throws `StoreError.exists`
    /// when `url` is taken (another writer won), leaving it as it was.
    public static func create(_ data: Data, at url: URL, permissions: mode_t = 0o644) throws {
        let temporary = try writeTemporary(data, beside: url, permissions: permissions)
        do {
            try moveNoReplace(temporary, to: url)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// `data` in a synced temporary file in `url`'s folder.
    private static func writeTemporary(_ data: Data, beside url: URL, permissions: mode_t) throws -> URL {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(temporaryName())
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw error("create", temporary) }
        fchmod(fd, permissions)
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do {
            try data.withUnsafeBytes { buffer in
                try writeAll(fd, buffer, path: temporary)
            }
            guard fsync(fd) == 0 else { throw error("sync", temporary) }
            closed = true
            guard close(fd) == 0 else { throw error("close", temporary) }
        } catch {
            unlink(temporary.path)
            throw error
        }
        return temporary
    }

    /// Copies `source` into `destinationFolder` under a temporary name without loading it whole,
    /// syncs it, and returns the temporary URL together with the number of bytes copied.
    public static func streamCopy(from source: URL, into destinationFolder: URL,
                                  chunkSize: Int = 1 << 20) throws -> (temporary: URL, bytes: Int64) {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw error("open", source) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw error("inspect", source) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.io(operation: "copy", path: source.path, reason: "not a regular file")
        }
        let temporary = destinationFolder.appendingPathComponent(temporaryName())
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw error("create", temporary) }
        var total: Int64 = 0
        do {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(input, buffer.baseAddress, chunkSize)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw error("read", source)
                }
                if count == 0 { break }
                try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: temporary)
                total += Int64(count)
            }
            guard fsync(output) == 0 else { throw error("sync", temporary) }
            guard close(output) == 0 else { throw error("close", temporary) }
        } catch {
            close(output)
            unlink(temporary.path)
            throw error
        }
        return (temporary, total)
    }

    /// Renames `source` to `destination` atomically and never replaces an existing `destination`
    /// (`renameat2` with `RENAME_NOREPLACE`); throws `StoreError.exists` when it is taken. Both
    /// folders are synced afterwards.
    public static func moveNoReplace(_ source: URL, to destination: URL) throws {
        if mi_rename_noreplace(source.path, destination.path) != 0 {
            let code = errno
            switch code {
            case EEXIST, ENOTEMPTY:
                throw StoreError.exists(path: destination.path)
            case EINVAL, ENOSYS, EOPNOTSUPP:
                // The file system cannot refuse to replace. Every mi process holds the store's
                // lock while it moves, so check-then-rename is race-free among them.
                if FileManager.default.fileExists(atPath: destination.path) {
                    throw StoreError.exists(path: destination.path)
                }
                guard rename(source.path, destination.path) == 0 else { throw error("move", source, to: destination) }
            default:
                errno = code
                throw error("move", source, to: destination)
            }
        }
        try syncFolder(destination.deletingLastPathComponent())
        if source.deletingLastPathComponent().path != destination.deletingLastPathComponent().path {
            try syncFolder(source.deletingLastPathComponent())
        }
    }

    /// Creates `folder` and any missing parents, syncing each parent so the new entries persist.
    public static func makeFolder(_ folder: URL) throws {
        var missing: [URL] = []
        var current = folder.standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path) {
            missing.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { break }
            current = parent
        }
        for url in missing.reversed() {
            if mkdir(url.path, 0o755) != 0 && errno != EEXIST { throw error("create folder", url) }
            try syncFolder(url.deletingLastPathComponent())
        }
    }

    /// fsync of a folder, which persists the entries created, renamed or removed in it.
    public static func syncFolder(_ folder: URL) throws {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error("open folder", folder) }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { throw error("sync folder", folder) }
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: URL) throws {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            offset += written
        }
    }

    public static func error(_ operation: String, _ url: URL, to destination: URL? = nil) -> StoreError {
        let reason = String(cString: strerror(errno))
        let path = destination.map { "\(url.path) to \($0.path)" } ?? url.path
        return .io(operation: operation, path: path, reason: reason)
    }
}
