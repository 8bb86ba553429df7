import Foundation
import Logging
import MIKit
import NIOConcurrencyHelpers
import NIOSSL

/// The certificate chain and key mi-server serves HTTPS with, read from `Server.TLSCertificateFile`
/// and `Server.TLSKeyFile` at start-up and again by `reload` (on SIGHUP). Every handshake takes
/// the pair current at that moment, so a renewed certificate reaches new connections without a
/// restart, while connections already open keep theirs.
final class TLSCertificates: Sendable {
    /// A certificate chain with the private key that belongs to its first certificate.
    struct Pair: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
    }

    let files: Configuration.Server.TLSFiles
    private let current: NIOLockedValueBox<Pair>

    /// Reads and checks the pair; throws `ServerSetupError.tls` naming the file and what to fix.
    init(files: Configuration.Server.TLSFiles) throws {
        self.files = files
        current = NIOLockedValueBox(try Self.load(files))
    }

    /// The pair new handshakes get now.
    var pair: Pair { current.withLockedValue { $0 } }

    /// The server side of TLS: TLS 1.2 or later, with the pair asked for at each handshake.
    func serverConfiguration() -> TLSConfiguration {
        let pair = current.withLockedValue { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        configuration.minimumTLSVersion = .tlsv12
        let current = self.current
        configuration.sslContextCallback = { _, promise in
            let pair = current.withLockedValue { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
        return configuration
    }

    /// Reads the files again: a good pair replaces the current one; a bad one is logged and the
    /// current pair kept, so a half-copied renewal never takes HTTPS down. Returns whether it was taken.
    @discardableResult
    func reload(logger: Logger) -> Bool {
        do {
            let pair = try Self.load(files)
            current.withLockedValue { $0 = pair }
            logger.notice("HTTPS certificate reloaded from \(files.certificateFile)")
            return true
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            logger.error("HTTPS certificate not reloaded, still serving the previous one: \(reason)")
            return false
        }
    }

    /// The pair in the two PEM files, checked to belong together.
    static func load(_ files: Configuration.Server.TLSFiles) throws -> Pair {
        let certificateBytes = try read(files.certificateFile, what: "Server.TLSCertificateFile")
        let keyBytes = try read(files.keyFile, what: "Server.TLSKeyFile")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            chain = []
        }
        guard !chain.isEmpty else {
            throw ServerSetupError.tls(path: files.certificateFile,
                                       problem: "holds no PEM certificate — Server.TLSCertificateFile must be the server's certificate (then any intermediates) in PEM")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw ServerSetupError.tls(path: files.keyFile,
                                       problem: "holds no unencrypted PEM private key — Server.TLSKeyFile must be the certificate's key in PEM, without a passphrase")
        }
        do {
            // BoringSSL refuses a key that does not match the chain's first certificate here.
            _ = try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw ServerSetupError.tls(path: files.keyFile,
                                       problem: "is not the private key of the certificate in \(files.certificateFile) — give the key the certificate was issued for")
        }
        return Pair(chain: chain, key: key)
    }

    private static func read(_ path: String, what: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw ServerSetupError.tls(path: path, problem: "cannot be read (\(reason)) — check \(what) and that mi-server's user may read the file")
        }
    }
}
