import Foundation

/// Reads a zip archive back for assertions, independently of the writer: the end records
/// (classic and Zip64), every central directory record with its Zip64 extra field, and each
/// entry's local header, data and data descriptor, which must agree with the directory.
public struct ZipArchiveReader {
    public struct Entry: Equatable {
        public var name: String
        public var flags: UInt16
        public var crc: UInt32
        public var size: UInt64
        public var localOffset: UInt64
        public var data: [UInt8]
        /// The central record carried a Zip64 extra field.
        public var zip64Extra: Bool
        /// The data descriptor had 8-byte sizes.
        public var wideDescriptor: Bool
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public let entries: [Entry]
    /// The Zip64 end records were present.
    public let zip64End: Bool
    public let entryCountField: UInt16

    public init(_ bytes: [UInt8]) throws {
        func u16(_ at: Int) throws -> UInt16 {
            guard at >= 0, at + 2 <= bytes.count else { throw Malformed("read past the end at \(at)") }
            return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) throws -> UInt32 { UInt32(try u16(at)) | UInt32(try u16(at + 2)) << 16 }
        func u64(_ at: Int) throws -> UInt64 { UInt64(try u32(at)) | UInt64(try u32(at + 4)) << 32 }

        let end = bytes.count - 22
        guard try u32(end) == 0x0605_4B50 else { throw Malformed("no end of central directory record at \(end)") }
        entryCountField = try u16(end + 10)
        var count = UInt64(entryCountField)
        var directorySize = UInt64(try u32(end + 12))
        var directoryOffset = UInt64(try u32(end + 16))
        let locator = end - 20
        if locator >= 0, try u32(locator) == 0x0706_4B50 {
            let record = Int(try u64(locator + 8))
            guard try u32(record) == 0x0606_4B50 else { throw Malformed("the Zip64 locator points at no Zip64 end record") }
            guard record + 56 == locator else { throw Malformed("the Zip64 end record is not right before its locator") }
            count = try u64(record + 32)
            directorySize = try u64(record + 40)
            directoryOffset = try u64(record + 48)
            zip64End = true
        } else {
            zip64End = false
        }
        guard directoryOffset + directorySize == UInt64(zip64End ? locator - 56 : end) else {
            throw Malformed("the central directory does not end where the end records start")
        }
        var entries: [Entry] = []
        var at = Int(directoryOffset)
        for _ in 0..<count {
            guard try u32(at) == 0x0201_4B50 else { throw Malformed("no central record at \(at)") }
            let flags = try u16(at + 8)
            guard try u16(at + 10) == 0 else { throw Malformed("an entry is not stored") }
            let crc = try u32(at + 16)
            var compressed = UInt64(try u32(at + 20))
            var size = UInt64(try u32(at + 24))
            let nameLength = Int(try u16(at + 28)), extraLength = Int(try u16(at + 30)), commentLength = Int(try u16(at + 32))
            var offset = UInt64(try u32(at + 42))
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            var extra = at + 46 + nameLength
            let extraEnd = extra + extraLength
            var zip64Extra = false
            var sizeInExtra = false
            while extra < extraEnd {
                let id = try u16(extra), length = Int(try u16(extra + 2))
                if id == 0x0001 {
                    zip64Extra = true
                    var field = extra + 4
                    if size == 0xFFFF_FFFF { size = try u64(field); field += 8; sizeInExtra = true }
                    if compressed == 0xFFFF_FFFF { compressed = try u64(field); field += 8 }
                    if offset == 0xFFFF_FFFF { offset = try u64(field); field += 8 }
                    guard field == extra + 4 + length else { throw Malformed("\(name): the Zip64 field has fields no value asks for") }
                }
                extra += 4 + length
            }
            guard compressed == size else { throw Malformed("\(name): stored sizes differ") }
            at = extraEnd + commentLength

            let local = Int(offset)
            guard try u32(local) == 0x0403_4B50 else { throw Malformed("\(name): no local header at \(local)") }
            guard try u16(local + 6) == flags else { throw Malformed("\(name): local and central flags differ") }
            let localName = String(decoding: bytes[(local + 30)..<(local + 30 + Int(try u16(local + 26)))], as: UTF8.self)
            guard localName == name else { throw Malformed("\(name): the local header names \(localName)") }
            let localExtra = Int(try u16(local + 28))
            let start = local + 30 + Int(try u16(local + 26)) + localExtra
            guard start + Int(size) <= bytes.count else { throw Malformed("\(name): data past the end") }
            let data = Array(bytes[start..<(start + Int(size))])
            var wide = false
            if flags & 0x8 != 0 {
                let descriptor = start + Int(size)
                guard try u32(descriptor) == 0x0807_4B50 else { throw Malformed("\(name): no data descriptor after the data") }
                guard try u32(descriptor + 4) == crc else { throw Malformed("\(name): descriptor CRC differs") }
                wide = localExtra > 0 || sizeInExtra
                let descriptorSize = wide ? try u64(descriptor + 8) : UInt64(try u32(descriptor + 8))
                guard descriptorSize == size else { throw Malformed("\(name): descriptor size differs") }
            }
            entries.append(Entry(name: name, flags: flags, crc: crc, size: size, localOffset: offset, data: data,
                                 zip64Extra: zip64Extra, wideDescriptor: wide))
        }
        guard at == Int(directoryOffset + directorySize) else { throw Malformed("the central directory has bytes left over") }
        self.entries = entries
    }

    /// The entry named `name`.
    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }
}
