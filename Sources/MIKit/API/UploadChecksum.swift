import CMISystem
import Crypto
import Foundation

/// A resumable upload's `Upload-Checksum` (tus checksum extension): `<algorithm> <base64 digest>`
/// of one PATCH body. `mi upload` sends CRC-32C, which the CPU computes at memory speed; the
/// file's SHA-256, the receipt's proof, is computed apart from it. mi-server also takes `sha1`
/// (which tus asks every server to take) and `sha256`.
public struct UploadChecksum: Sendable, Equatable {
    /// The algorithms, as `Tus-Checksum-Algorithm` lists them.
    public enum Algorithm: String, Sendable, CaseIterable {
        case crc32c, sha1, sha256

        /// The digest's size in bytes.
        public var digestBytes: Int {
            switch self {
            case .crc32c: return 4
            case .sha1: return 20
            case .sha256: return 32
            }
        }
    }

    /// The value of `Tus-Checksum-Algorithm`.
    public static let supportedAlgorithms = Algorithm.allCases.map(\.rawValue).joined(separator: ",")

    public var algorithm: Algorithm
    /// The digest's bytes (CRC-32C big-endian).
    public var digest: Data

    /// A checksum as given.
    public init(algorithm: Algorithm, digest: Data) {
        self.algorithm = algorithm
        self.digest = digest
    }

    /// The checksum of `bytes` with `algorithm`.
    public init(_ algorithm: Algorithm, of bytes: UnsafeRawBufferPointer) {
        var hasher = Hasher(algorithm)
        hasher.update(bytes)
        self = hasher.finalize()
    }

    /// Reads the header's value; throws `UploadChecksumError` saying what is wrong.
    public init(headerValue: String) throws(UploadChecksumError) {
        let fields = headerValue.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2 else { throw .malformed }
        guard let algorithm = Algorithm(rawValue: String(fields[0]).lowercased()) else {
            throw .unsupported(String(fields[0]))
        }
        guard let digest = Data(base64Encoded: String(fields[1])), digest.count == algorithm.digestBytes else {
            throw .wrongDigest(algorithm)
        }
        self.init(algorithm: algorithm, digest: digest)
    }

    /// `<algorithm> <base64 digest>`.
    public var headerValue: String { "\(algorithm.rawValue) \(digest.base64EncodedString())" }

    /// Computes a checksum over bytes given piece by piece.
    public struct Hasher {
        private enum State {
            case crc32c(UInt32)
            case sha1(Insecure.SHA1)
            case sha256(SHA256)
        }

        public let algorithm: Algorithm
        private var state: State

        /// An empty computation.
        public init(_ algorithm: Algorithm) {
            self.algorithm = algorithm
            switch algorithm {
            case .crc32c: state = .crc32c(0)
            case .sha1: state = .sha1(Insecure.SHA1())
            case .sha256: state = .sha256(SHA256())
            }
        }

        /// Adds `bytes`.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            switch state {
            case .crc32c(let crc): state = .crc32c(mi_crc32c(crc, bytes.baseAddress, bytes.count))
            case .sha1(var hasher):
                hasher.update(bufferPointer: bytes)
                state = .sha1(hasher)
            case .sha256(var hasher):
                hasher.update(bufferPointer: bytes)
                state = .sha256(hasher)
            }
        }

        /// The checksum of everything added.
        public func finalize() -> UploadChecksum {
            switch state {
            case .crc32c(let crc):
                return UploadChecksum(algorithm: .crc32c, digest: withUnsafeBytes(of: crc.bigEndian) { Data($0) })
            case .sha1(let hasher): return UploadChecksum(algorithm: .sha1, digest: Data(hasher.finalize()))
            case .sha256(let hasher): return UploadChecksum(algorithm: .sha256, digest: Data(hasher.finalize()))
            }
        }
    }
}

/// Why an `Upload-Checksum` header was refused.
public enum UploadChecksumError: ClassifiedError, Sendable, Equatable {
    case malformed
    case unsupported(String)
    case wrongDigest(UploadChecksum.Algorithm)

    public var failureClass: FailureClass { .badData }

    public var code: String {
        switch self {
        case .malformed: return "checksum-malformed"
        case .unsupported: return "checksum-unsupported"
        case .wrongDigest: return "checksum-wrong-digest"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .malformed:
            return "Upload-Checksum must be \"<algorithm> <base64 digest>\" (\(UploadChecksum.supportedAlgorithms))"
        case .unsupported(let name):
            return "checksum algorithm \"\(name)\" is not supported — use one of \(UploadChecksum.supportedAlgorithms)"
        case .wrongDigest(let algorithm):
            return "Upload-Checksum's digest is not the base64 of a \(algorithm.rawValue) digest (\(algorithm.digestBytes) bytes)"
        }
    }
}
