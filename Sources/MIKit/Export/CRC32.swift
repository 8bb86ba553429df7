/// CRC-32 as zip (and gzip, PNG) use it: polynomial 0xEDB88320 (reflected), initial and final
/// value 0xFFFFFFFF. Computed eight bytes at a time ("slicing-by-8") so checking a gigabyte
/// of media costs about what reading it does.
public struct CRC32: Sendable, Equatable {
    /// The running value, already complemented back: `value` is the CRC of everything so far.
    public private(set) var value: UInt32 = 0

    public init() {}

    /// The CRC of `bytes` in one call.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        let array = Array(bytes)
        array.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    /// Adds `bytes` to the running CRC.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var crc = ~value
        var index = 0
        let count = bytes.count
        Self.tables.withUnsafeBufferPointer { table in
            while count - index >= 8 {
                let low = UInt32(base.load(fromByteOffset: index, as: UInt8.self))
                    | UInt32(base.load(fromByteOffset: index + 1, as: UInt8.self)) << 8
                    | UInt32(base.load(fromByteOffset: index + 2, as: UInt8.self)) << 16
                    | UInt32(base.load(fromByteOffset: index + 3, as: UInt8.self)) << 24
                let high = UInt32(base.load(fromByteOffset: index + 4, as: UInt8.self))
                    | UInt32(base.load(fromByteOffset: index + 5, as: UInt8.self)) << 8
                    | UInt32(base.load(fromByteOffset: index + 6, as: UInt8.self)) << 16
                    | UInt32(base.load(fromByteOffset: index + 7, as: UInt8.self)) << 24
                let word = crc ^ low
                crc = table[7 * 256 + Int(word & 0xFF)] ^ table[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((word >> 16) & 0xFF)] ^ table[4 * 256 + Int(word >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                let byte = UInt32(base.load(fromByteOffset: index, as: UInt8.self))
                crc = table[Int((crc ^ byte) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
        }
        value = ~crc
    }

    /// Eight tables of 256: table 0 is the classic byte table, table k advances a byte k more
    /// positions.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            var crc = tables[byte]
            for slice in 1..<8 {
                crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
                tables[slice * 256 + byte] = crc
            }
        }
        return tables
    }()
}
