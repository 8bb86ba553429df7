import Foundation
import MIKit
import ZIPFoundation

/// How much a workbook may unpack to. The defaults are far above any form (a 2,000-question
/// XLSForm is under 2 MB unpacked) and far below what would hurt a server.
public struct XLSXLimits: Sendable, Equatable {
    /// Bytes one part (a sheet, the shared strings) may unpack to.
    public var maxPartBytes: Int
    /// Bytes all the parts read may unpack to together.
    public var maxTotalBytes: Int

    public init(maxPartBytes: Int = 64 << 20, maxTotalBytes: Int = 256 << 20) {
        self.maxPartBytes = maxPartBytes
        self.maxTotalBytes = maxTotalBytes
    }

    public static let `default` = XLSXLimits()
}

/// The zip holding a workbook's parts, read entry by entry with the limits enforced on the bytes
/// actually inflated (never on the sizes the zip declares, which a hostile file can fake).
struct XLSXPackage {
    private let archive: Archive
    private let limits: XLSXLimits
    private var totalBytes = 0

    init(url: URL, limits: XLSXLimits) throws {
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw XLSXError.notAnXLSX(file: url.lastPathComponent)
        }
        self.limits = limits
    }

    init(data: Data, name: String, limits: XLSXLimits) throws {
        do {
            archive = try Archive(data: data, accessMode: .read)
        } catch {
            throw XLSXError.notAnXLSX(file: name)
        }
        self.limits = limits
    }

    func contains(_ path: String) -> Bool {
        archive[path] != nil
    }

    /// The part's bytes, or nil when the zip has no such entry.
    mutating func part(_ path: String) throws -> Data? {
        guard let entry = archive[path], entry.type == .file else { return nil }
        let partLimit = limits.maxPartBytes
        let totalLimit = limits.maxTotalBytes
        if entry.uncompressedSize > UInt64(partLimit) { throw XLSXError.partTooLarge(part: path, limit: partLimit) }
        var data = Data()
        data.reserveCapacity(Int(min(entry.uncompressedSize, UInt64(partLimit))))
        var total = totalBytes
        // The CRC is MIKit's eight-bytes-at-a-time one: ZIPFoundation's own goes byte by byte
        // on Linux, where it has no zlib module to call.
        var crc = MIKit.CRC32()
        do {
            _ = try archive.extract(entry, bufferSize: 64 * 1024, skipCRC32: true) { chunk in
                data.append(chunk)
                chunk.withUnsafeBytes { crc.update($0) }
                total += chunk.count
                if data.count > partLimit { throw XLSXError.partTooLarge(part: path, limit: partLimit) }
                if total > totalLimit { throw XLSXError.workbookTooLarge(limit: totalLimit) }
            }
            guard crc.value == entry.checksum else {
                throw XLSXError.unreadablePart(part: path, detail: "its CRC-32 checksum does not match")
            }
        } catch let error as XLSXError {
            throw error
        } catch {
            throw XLSXError.unreadablePart(part: path, detail: "\(error)")
        }
        totalBytes = total
        return data
    }

    /// The part's bytes; a missing part is an error naming it.
    mutating func requiredPart(_ path: String) throws -> Data {
        guard let data = try part(path) else { throw XLSXError.missingPart(path) }
        return data
    }
}
