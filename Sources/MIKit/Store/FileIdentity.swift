import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says of a file: enough to notice that it was replaced or written to. Every write
/// in the store replaces a file (a new inode) or appends to it, so the same inode, size and
/// modification time mean the same bytes.
public struct FileIdentity: Sendable, Equatable, Codable {
    /// The inode number.
    public var inode: UInt64
    /// The size in bytes.
    public var size: Int64
    /// The modification time, whole seconds.
    public var modifiedSeconds: Int
    /// The modification time's nanoseconds.
    public var modifiedNanoseconds: Int
    /// Whether it is a regular file (not a folder, device or pipe).
    public var isRegularFile: Bool

    /// The identity of the file at `url` now, or nil when it cannot be `stat`ed.
    public init?(_ url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of the open file `descriptor` now, or nil when it cannot be `fstat`ed.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
