import Foundation
import MIKit
import TestSupport
import XCTest
@testable import MITransport

/// HTTPS with a private CA: refused until Server.CAFile names it.
final class TLSTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificates: TestCertificates!
    private var server: TestServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "tls")
        certificates = try TestCertificates(in: directory)
        server = try TestServer(tls: (certificates.certificate, certificates.key))
    }

    override func tearDown() {
        server?.stop()
        server = nil
        directory = nil
    }

    func testUntrustedCertificateIsRefused() throws {
        let client = ServerClient(server: try server.configuration(), retry: .none)
        let error = assertTransportError { try client.health() }
        guard case .certificateNotTrusted(let host, let detail)? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(host, "127.0.0.1")
        XCTAssertEqual(error?.failureClass, .configuration)
        XCTAssertTrue(detail.contains("certificate"), detail)
        XCTAssertTrue(error?.errorDescription?.contains("set Server.CAFile to your CA bundle") ?? false)
    }

    func testTrustedWithCAFile() throws {
        let client = ServerClient(server: try server.configuration(caFile: certificates.caFile.path), retry: .none)
        try client.health()
        let session = try client.createSession(user: "fred", password: "secret")
        XCTAssertEqual(session.role, .foreman)
        let form = try UploadFixture.files(in: directory)
        let (receipt, created) = try client.upload(formID: form.id, parts: form.files, progress: nil)
        XCTAssertTrue(created)
        XCTAssertEqual(receipt.parts.count, form.files.count)
    }

    func testUnreadableCAFile() throws {
        let missing = directory.path("nope.pem").path
        let client = ServerClient(server: try server.configuration(caFile: missing), retry: .none)
        let error = assertTransportError { try client.health() }
        guard case .caFileUnusable(let path, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(path, missing)
    }

    func testPlainHTTPToATLSServerFailsClearly() throws {
        let plain = try TestServer.configuration(scheme: "http", domain: "127.0.0.1", port: server.port, in: directory)
        let error = assertTransportError { try ServerClient(server: plain, retry: .none, lowSpeedTime: 2).health() }
        guard case .network(let url, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(url, "http://127.0.0.1:\(server.port)")
    }

    func testHTTPSToAPlainServerIsATLSFailure() throws {
        let plainServer = try TestServer()
        let configuration = try TestServer.configuration(scheme: "https", domain: "127.0.0.1", port: plainServer.port,
                                                         in: directory)
        let error = assertTransportError { try ServerClient(server: configuration, retry: .none).health() }
        guard case .tlsFailed? = error else { return XCTFail("\(String(describing: error))") }
    }
}
