import Crypto
import Foundation
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// The HMAC key session tokens and office cookies are signed with: 32 random bytes made on the
/// first start and kept in `DataDirectory/signing.key`, or in `Server.SigningKeyFile` (0600), so
/// tokens survive a restart and, with one key file, are valid on every mi-server that reads it.
enum SigningKey {
    static let byteCount = 32

    static func loadOrCreate(at url: URL, logger: Logger) throws -> [UInt8] {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            guard errno == ENOENT else {
                throw ServerSetupError.signingKey(path: url.path, problem: "cannot be read (\(String(cString: strerror(errno)))) — check its owner and permissions")
            }
            return try create(at: url, logger: logger)
                ?? loadOrCreate(at: url, logger: logger)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ServerSetupError.signingKey(path: url.path, problem: "not a regular file — remove it; a new key is made at the next start (everyone logs in again)")
        }
        if info.st_mode & 0o077 != 0 {
            logger.warning("the signing key \(url.path) was readable by others: made it owner-only (0600)")
            guard fchmod(fd, 0o600) == 0 else {
                throw ServerSetupError.signingKey(path: url.path, problem: "cannot be made owner-only (\(String(cString: strerror(errno)))) — check its owner")
            }
        }
        var bytes = [UInt8](repeating: 0, count: byteCount + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress.map { $0 + total }, buffer.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ServerSetupError.signingKey(path: url.path, problem: "cannot be read (\(String(cString: strerror(errno)))) — check the disk")
            }
            if count == 0 { break }
            total += count
        }
        guard total == byteCount else {
            throw ServerSetupError.signingKey(path: url.path, problem: "damaged (\(total == byteCount + 1 ? "too long" : "\(total) bytes, expected \(byteCount)")) — remove it; a new key is made at the next start (everyone logs in again)")
        }
        return Array(bytes[0..<byteCount])
    }

    /// Makes a new key at `url` without replacing anything; nil when another mi-server made
    /// one there first (several servers starting at once on one key file all read the winner's).
    private static func create(at url: URL, logger: Logger) throws -> [UInt8]? {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        do {
            try DurableFile.create(Data(bytes), at: url, permissions: 0o600)
        } catch StoreError.exists {
            return nil
        } catch {
            throw ServerSetupError.signingKey(path: url.path, problem: "cannot be made (\(error.localizedDescription)) — check that its folder exists and mi-server's user may write there")
        }
        logger.notice("made a new session signing key at \(url.path)")
        return bytes
    }
}
