import Foundation

/// A zip archive written front to back without ever seeking, so it can go straight into an
/// HTTP response: every entry is stored (media are already compressed, and a CSV of answers
/// is small next to them), with general-purpose flag bit 3 set so its CRC-32 and sizes follow
/// the data in a data descriptor, computed while the bytes pass. Names are UTF-8 (bit 11).
///
/// The central directory is spooled to an unlinked temporary file as entries end and copied
/// out at the close, so memory stays the same for 100 entries or 100,000. Zip64 is used where
/// the classic fields overflow: a Zip64 extra field for an entry whose size or offset passes
/// 4 GiB, and the Zip64 end records when there are 65,535 entries or more or the directory
/// itself starts or ends past 4 GiB.
///
/// An entry whose size is known up front (a media file) and passes 4 GiB gets a Zip64 extra
/// field in its local header, as APPNOTE 4.3.9 asks, and 8-byte sizes in its data descriptor.
/// An entry of unknown size (the CSV) that turns out larger gets 8-byte sizes in its
/// descriptor without the local extra field (as Go's archive/zip does): readers take sizes
/// from the central directory, which always has the Zip64 field.
struct ZipWriter {
    /// Where the classic fields overflow; lowered by tests to reach the Zip64 paths cheaply.
    struct Limits: Sendable {
        /// Entries from which the end records go Zip64 (the classic count field holds 0xFFFF at most, which means "see Zip64").
        var entries: Int = 0xFFFF
        /// Sizes and offsets from which the Zip64 fields are used.
        var bytes: UInt64 = 0xFFFF_FFFF

        static let standard = Limits()
    }

    private struct Entry {
        var name: [UInt8]
        var localOffset: UInt64
        var crc = CRC32()
        var size: UInt64 = 0
        var zip64Local: Bool
    }

    let limits: Limits
    /// Bytes made and not yet taken with `takeOutput()`.
    private(set) var output: [UInt8] = []
    /// Bytes made in all: the offset of the next byte in the archive.
    private(set) var offset: UInt64 = 0
    private(set) var entryCount = 0
    private var current: Entry?
    private let directory: SpoolFile
    private let dosTime: UInt16
    private let dosDate: UInt16
    private var directoryCopied: UInt64 = 0
    private var finished = false

    /// An archive whose entries all carry `modified` as their time (zip times have no zone:
    /// they are written in UTC).
    init(modified: Date, temporaryFolder: String? = nil, limits: Limits = .standard) throws(ExportError) {
        self.limits = limits
        directory = try SpoolFile(folder: temporaryFolder)
        (dosTime, dosDate) = Self.dosDateTime(modified)
    }

    /// The bytes made so far, handed over.
    mutating func takeOutput() -> [UInt8] {
        defer { output = [] }
        return output
    }

    /// Starts an entry named `name` (a path with `/`). `expectedSize`, when known, decides
    /// whether the local header needs a Zip64 field.
    mutating func begin(name: String, expectedSize: UInt64? = nil) {
        precondition(current == nil, "an entry is already open")
        let nameBytes = Array(name.utf8)
        let zip64Local = (expectedSize ?? 0) >= limits.bytes
        let entry = Entry(name: nameBytes, localOffset: offset, zip64Local: zip64Local)
        var header: [UInt8] = []
        header.le32(0x0403_4B50)
        header.le16(zip64Local ? 45 : 20)
        header.le16(Self.flags)
        header.le16(0)  // stored
        header.le16(dosTime)
        header.le16(dosDate)
        header.le32(0)  // CRC-32, in the data descriptor
        header.le32(zip64Local ? 0xFFFF_FFFF : 0)
        header.le32(zip64Local ? 0xFFFF_FFFF : 0)
        header.le16(UInt16(clamping: nameBytes.count))
        header.le16(zip64Local ? 20 : 0)
        header += nameBytes
        if zip64Local {
            header.le16(0x0001)
            header.le16(16)
            header.le64(0)
            header.le64(0)
        }
        emit(header)
        current = entry
    }

    /// Adds bytes to the open entry.
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        current?.crc.update(bytes)
        current?.size += UInt64(bytes.count)
        output.append(contentsOf: bytes)
        offset += UInt64(bytes.count)
    }

    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Ends the open entry: its data descriptor, and its record in the spooled directory.
    mutating func end() throws(ExportError) {
        guard let entry = current else { return }
        current = nil
        let wide = entry.zip64Local || entry.size >= limits.bytes
        var descriptor: [UInt8] = []
        descriptor.le32(0x0807_4B50)
        descriptor.le32(entry.crc.value)
        if wide {
            descriptor.le64(entry.size)
            descriptor.le64(entry.size)
        } else {
            descriptor.le32(UInt32(entry.size))
            descriptor.le32(UInt32(entry.size))
        }
        emit(descriptor)

        let bigSize = entry.size >= limits.bytes
        let bigOffset = entry.localOffset >= limits.bytes
        var extra: [UInt8] = []
        if bigSize || bigOffset {
            var fields: [UInt8] = []
            if bigSize { fields.le64(entry.size); fields.le64(entry.size) }
            if bigOffset { fields.le64(entry.localOffset) }
            extra.le16(0x0001)
            extra.le16(UInt16(fields.count))
            extra += fields
        }
        var record: [UInt8] = []
        record.le32(0x0201_4B50)
        record.le16(Self.madeBy)
        record.le16(extra.isEmpty && !entry.zip64Local ? 20 : 45)
        record.le16(Self.flags)
        record.le16(0)
        record.le16(dosTime)
        record.le16(dosDate)
        record.le32(entry.crc.value)
        record.le32(bigSize ? 0xFFFF_FFFF : UInt32(entry.size))
        record.le32(bigSize ? 0xFFFF_FFFF : UInt32(entry.size))
        record.le16(UInt16(clamping: entry.name.count))
        record.le16(UInt16(extra.count))
        record.le16(0)  // comment
        record.le16(0)  // disk
        record.le16(0)  // internal attributes
        record.le32(Self.regularFile)
        record.le32(bigOffset ? 0xFFFF_FFFF : UInt32(entry.localOffset))
        record += entry.name
        record += extra
        try directory.append(record)
        entryCount += 1
    }

    /// Copies out up to `maximumBytes` of the central directory, then the end records; true
    /// once the archive is complete.
    mutating func finish(maximumBytes: Int) throws(ExportError) -> Bool {
        if finished { return true }
        if current != nil { try end() }
        if directoryCopied < directory.size {
            let part = try directory.read(upTo: maximumBytes)
            emit(part)
            directoryCopied += UInt64(part.count)
            if directoryCopied < directory.size { return false }
        }
        let directoryOffset = offset - directory.size
        let directorySize = directory.size
        let zip64 = entryCount >= limits.entries || directoryOffset >= limits.bytes || directorySize >= limits.bytes
        var end: [UInt8] = []
        if zip64 {
            let recordOffset = offset
            end.le32(0x0606_4B50)
            end.le64(44)
            end.le16(Self.madeBy)
            end.le16(45)
            end.le32(0)
            end.le32(0)
            end.le64(UInt64(entryCount))
            end.le64(UInt64(entryCount))
            end.le64(directorySize)
            end.le64(directoryOffset)
            end.le32(0x0706_4B50)
            end.le32(0)
            end.le64(recordOffset)
            end.le32(1)
        }
        end.le32(0x0605_4B50)
        end.le16(0)
        end.le16(0)
        let count: UInt16 = zip64 ? 0xFFFF : UInt16(entryCount)
        end.le16(count)
        end.le16(count)
        end.le32(zip64 ? 0xFFFF_FFFF : UInt32(directorySize))
        end.le32(zip64 ? 0xFFFF_FFFF : UInt32(directoryOffset))
        end.le16(0)
        emit(end)
        finished = true
        return true
    }

    private mutating func emit(_ bytes: [UInt8]) {
        output += bytes
        offset += UInt64(bytes.count)
    }

    /// Bit 3 (sizes and CRC in a data descriptor) and bit 11 (UTF-8 names).
    static let flags: UInt16 = 1 << 3 | 1 << 11
    /// Unix (3), APPNOTE 4.5: the external attributes hold a Unix mode.
    static let madeBy: UInt16 = 3 << 8 | 45
    /// `-rw-r--r--`, a regular file.
    static let regularFile: UInt32 = 0o100644 << 16

    /// MS-DOS time and date fields of `date` in UTC (two-second steps, from 1980).
    static func dosDateTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        let day = UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        return (time, day)
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    mutating func le64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }
}
