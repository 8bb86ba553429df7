import Foundation
import MIKit
@testable import MIServer
import NIOSSL
import TestSupport
import XCTest

/// The HTTPS certificate and key: read and checked at start-up, swapped by a reload only when
/// the new pair is good.
final class TLSCertificatesTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var ca: ThrowawayCA!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "mi-tls")
        ca = try ThrowawayCA(name: "office", in: directory.url)
    }

    override func tearDown() {
        ca = nil
        directory = nil
    }

    private func files(_ issued: ThrowawayCA.Issued) -> Configuration.Server.TLSFiles {
        .init(certificateFile: issued.certificate.path, keyFile: issued.key.path)
    }

    private func problem(_ files: Configuration.Server.TLSFiles) -> ServerSetupError? {
        do {
            _ = try TLSCertificates(files: files)
            return nil
        } catch {
            return error as? ServerSetupError
        }
    }

    private func serial(_ pair: TLSCertificates.Pair) -> [UInt8]? { pair.chain.first?.serialNumber }

    func testAGoodPairLoads() throws {
        let issued = try ca.issue("server")
        let certificates = try TLSCertificates(files: files(issued))
        XCTAssertEqual(certificates.pair.chain.count, 1)
        XCTAssertEqual(serial(certificates.pair),
                       try NIOSSLCertificate.fromPEMFile(issued.certificate.path).first?.serialNumber)
        XCTAssertEqual(certificates.serverConfiguration().minimumTLSVersion, .tlsv12, "nothing older than TLS 1.2")
        XCTAssertNotNil(certificates.serverConfiguration().sslContextCallback, "each handshake asks for the current pair")
    }

    func testAMissingCertificateFileIsAConfigurationErrorNamingIt() throws {
        let issued = try ca.issue("server")
        let missing = directory.path("nowhere.pem").path
        let error = try XCTUnwrap(problem(.init(certificateFile: missing, keyFile: issued.key.path)))
        XCTAssertEqual(error.failureClass, .configuration)
        XCTAssertEqual(error.code, "tls-certificate")
        let message = try XCTUnwrap(error.errorDescription)
        XCTAssertTrue(message.contains(missing) && message.contains("cannot be read")
                      && message.contains("Server.TLSCertificateFile"), message)
    }

    func testACertificateFileWithoutPEMIsRefused() throws {
        let issued = try ca.issue("server")
        try Data("not a certificate\n".utf8).write(to: issued.certificate)
        let message = try XCTUnwrap(problem(files(issued))?.errorDescription)
        XCTAssertTrue(message.contains("holds no PEM certificate"), message)
    }

    func testAKeyFileWithoutAKeyIsRefused() throws {
        let issued = try ca.issue("server")
        try FileManager.default.removeItem(at: issued.key)
        try FileManager.default.copyItem(at: issued.certificate, to: issued.key)
        let message = try XCTUnwrap(problem(files(issued))?.errorDescription)
        XCTAssertTrue(message.contains(issued.key.path) && message.contains("holds no unencrypted PEM private key"), message)
    }

    func testAKeyOfAnotherCertificateIsRefused() throws {
        let issued = try ca.issue("server")
        let other = try ca.issue("other")
        let message = try XCTUnwrap(problem(.init(certificateFile: issued.certificate.path, keyFile: other.key.path))?
            .errorDescription)
        XCTAssertTrue(message.contains("is not the private key of the certificate in \(issued.certificate.path)"), message)
    }

    func testReloadTakesAGoodNewPairAndKeepsTheOldOneWhenTheNewIsBad() throws {
        let issued = try ca.issue("server")
        let certificates = try TLSCertificates(files: files(issued))
        let first = serial(certificates.pair)
        let logs = LogCapture()

        // Renewed in place: taken.
        let renewed = try ca.issue("renewed")
        try FileManager.default.removeItem(at: issued.certificate)
        try FileManager.default.removeItem(at: issued.key)
        try FileManager.default.copyItem(at: renewed.certificate, to: issued.certificate)
        try FileManager.default.copyItem(at: renewed.key, to: issued.key)
        XCTAssertTrue(certificates.reload(logger: logs.logger()))
        let second = serial(certificates.pair)
        XCTAssertNotEqual(second, first)
        XCTAssertTrue(logs.messages.contains { $0.contains("HTTPS certificate reloaded") }, "\(logs.messages)")

        // Only the certificate renewed, not yet its key: refused, the previous pair kept.
        let half = try ca.issue("half")
        try FileManager.default.removeItem(at: issued.certificate)
        try FileManager.default.copyItem(at: half.certificate, to: issued.certificate)
        XCTAssertFalse(certificates.reload(logger: logs.logger()))
        XCTAssertEqual(serial(certificates.pair), second)
        XCTAssertTrue(logs.messages.contains {
            $0.contains("not reloaded, still serving the previous one") && $0.contains("is not the private key")
        }, "\(logs.messages)")
    }
}
