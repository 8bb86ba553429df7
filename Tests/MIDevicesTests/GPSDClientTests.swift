import Foundation
import MIDevices
import MIKit
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `GPSDClient` against a real gpsd (Debian's gpsfake replaying the NMEA logs in Resources) and
/// against peers that are not gpsd.
final class GPSDClientTests: XCTestCase {
    func resource(_ name: String) throws -> URL {
        try XCTUnwrap(Bundle.module.url(forResource: name, withExtension: "nmea"), "\(name).nmea is a test resource")
    }

    /// gpsfake on a free port, stopped when the test ends however it ends.
    func startGPSFake(_ log: String) throws -> GPSFake {
        let fake = try GPSFake(log: try resource(log))
        addTeardownBlock {
            fake.stop()
            XCTAssertTrue(fake.groupIsGone, "gpsfake and gpsd are stopped")
        }
        return fake
    }

    func testAFixFromARealGpsdIsTheLoggedPosition() throws {
        let fake = try startGPSFake("fix")
        var reports: [GPSProgress] = []
        let point = try GPSDClient(address: fake.address).fix(accuracy: 50, timeout: .seconds(20)) { reports.append($0) }
        XCTAssertEqual(point.latitude, 19.4326, accuracy: 1e-6)
        XCTAssertEqual(point.longitude, -99.1332, accuracy: 1e-6)
        // altHAE: 2240 m above mean sea level on a geoid 8 m below the ellipsoid. gpsd sends a
        // report per sentence, and the one after the log starts again has no altitude yet.
        var altitudes = [point.altitude].compactMap { $0 }
        for _ in 0..<5 where altitudes.isEmpty {
            altitudes += [try GPSDClient(address: fake.address).fix(accuracy: 50, timeout: .seconds(20)).altitude].compactMap { $0 }
        }
        XCTAssertEqual(try XCTUnwrap(altitudes.first), 2232, accuracy: 0.5)
        // gpsd's eph from the logged HDOP 0.9.
        let accuracy = try XCTUnwrap(point.accuracy)
        XCTAssertGreaterThan(accuracy, 0)
        XCTAssertLessThanOrEqual(accuracy, 50)
        XCTAssertFalse(reports.isEmpty, "progress is reported while waiting")
        XCTAssertEqual(reports.last?.accuracy, accuracy)
        XCTAssertEqual(reports.last?.mode, 3)
        XCTAssertTrue(reports.allSatisfy { $0.elapsed >= 0 && $0.elapsed < 20 })

        // Any fix will do when no accuracy is asked for; a second client gets one too.
        let any = try GPSDClient(address: fake.address).fix(timeout: .seconds(20))
        XCTAssertEqual(any.latitude, 19.4326, accuracy: 1e-6)

        // Stopped, the port is free and the next attempt says nothing listens there.
        fake.stop()
        XCTAssertTrue(fake.groupIsGone)
        XCTAssertThrowsError(try GPSDClient(address: fake.address).fix(timeout: .seconds(5))) { error in
            XCTAssertEqual(error as? GPSDError, .notListening(fake.address))
        }
    }

    func testAReceiverWithoutAFixTimesOutSayingSo() throws {
        let fake = try startGPSFake("nofix")
        let clock = ContinuousClock()
        var modes: Set<Int> = []
        let started = clock.now
        XCTAssertThrowsError(try GPSDClient(address: fake.address).fix(timeout: .seconds(3)) { modes.insert($0.mode) }) { error in
            guard case .noFix(let address, let seconds, let detail)? = error as? GPSDError else { return XCTFail("\(error)") }
            XCTAssertEqual(address, fake.address)
            XCTAssertEqual(seconds, 3)
            XCTAssertEqual(detail, "the receiver reports no fix yet — move to open sky and try again")
            XCTAssertEqual((error as? GPSDError)?.failureClass, .unreachable)
            XCTAssertTrue(error.localizedDescription.hasPrefix("no GPS fix from gpsd at 127.0.0.1:\(fake.port) within 3 s"))
        }
        let waited = started.duration(to: clock.now)
        XCTAssertGreaterThanOrEqual(waited, .seconds(2.9))
        XCTAssertLessThan(waited, .seconds(6))
        XCTAssertEqual(modes, [1], "the receiver's 'no fix' reports are shown while waiting")
    }

    func testNothingListeningIsAClearAndQuickError() throws {
        let port = try GPSFake.freePort()
        let address = GPSDAddress(host: "127.0.0.1", port: port)
        let clock = ContinuousClock()
        let started = clock.now
        XCTAssertThrowsError(try GPSDClient(address: address).fix(timeout: .seconds(30))) { error in
            XCTAssertEqual(error as? GPSDError, .notListening(address))
            XCTAssertEqual(error.localizedDescription,
                           "nothing is listening on 127.0.0.1:\(port) — is gpsd running? (Debian's gpsd package; Location.GPSD in Config.plist says where it listens)")
            XCTAssertEqual((error as? GPSDError)?.failureClass, .unreachable)
        }
        XCTAssertLessThan(started.duration(to: clock.now), .seconds(1), "refused at once, not after the 30 s timeout")
        XCTAssertThrowsError(try GPSDClient(address: GPSDAddress(host: "::1", port: port)).fix(timeout: .seconds(5))) { error in
            guard let error = error as? GPSDError else { return XCTFail("\(error)") }
            // IPv6 loopback refuses, or the machine has no IPv6: either way the address is named.
            XCTAssertTrue(error.localizedDescription.contains("[::1]:\(port)"), error.localizedDescription)
        }
        XCTAssertThrowsError(try GPSDClient(address: GPSDAddress(host: "no-such-host.invalid", port: 2947)).fix(timeout: .seconds(5))) { error in
            XCTAssertTrue(error.localizedDescription.hasPrefix("gpsd at no-such-host.invalid:2947 cannot be reached: the host is unknown"),
                          error.localizedDescription)
        }
    }

    func testPeersThatAreNotGpsdAreRefusedWithoutACrash() throws {
        let cases: [(String, [Data], String)] = [
            ("an HTTP server", [Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)],
             "does not speak gpsd's JSON protocol: not a JSON object: \"HTTP/1.1 400 Bad Request\""),
            ("broken JSON", [Data(#"{"class":"VERSION","release":"3.22"}"#.utf8 + [10]), Data(#"{"class":"TPV","mode":3,"lat":19.4"#.utf8 + [10])],
             "not a JSON object: \"{"),
            ("JSON without a class", [Data("[1,2,3]\n".utf8)], "not a JSON object"),
            ("an object without a class", [Data(#"{"lat":1}"#.utf8 + [10])], "a JSON object without a class"),
            ("an impossible position", [Data(#"{"class":"TPV","mode":3,"lat":123.0,"lon":0}"#.utf8 + [10])],
             "an impossible position (the latitude 123 is outside −90 to 90"),
            ("control characters", [Data([0x1b, 0x5b, 0x32, 0x4a, 0x00, 0xff, 10])], "not a JSON object: \""),
        ]
        for (name, replies, expected) in cases {
            let peer = try FakePeer(replies: replies, hold: 2)
            XCTAssertThrowsError(try GPSDClient(address: peer.address).fix(timeout: .seconds(5)), name) { error in
                XCTAssertEqual((error as? GPSDError)?.code, "gpsd-malformed", name)
                XCTAssertTrue(error.localizedDescription.contains(expected), "\(name): \(error.localizedDescription)")
                XCTAssertTrue(error.localizedDescription.contains("127.0.0.1:\(peer.port)"), name)
                XCTAssertFalse(error.localizedDescription.unicodeScalars.contains { $0.value < 32 }, name)
            }
        }
    }

    func testALineThatNeverEndsIsRefused() throws {
        let peer = try FakePeer(replies: [Data(repeating: 0x61, count: 1 << 20 + 10)], hold: 2)
        XCTAssertThrowsError(try GPSDClient(address: peer.address).fix(timeout: .seconds(10))) { error in
            XCTAssertEqual(error as? GPSDError, .malformed(peer.address, detail: "more than 1 MiB without a line end"))
        }
    }

    func testGpsdsOwnErrorsSilenceAndClosingAreNamed() throws {
        let refusing = try FakePeer(replies: [Data(#"{"class":"ERROR","message":"unrecognized request '?WATCH'"}"#.utf8 + [10])], hold: 2)
        XCTAssertThrowsError(try GPSDClient(address: refusing.address).fix(timeout: .seconds(5))) { error in
            XCTAssertEqual(error as? GPSDError, .refused(refusing.address, message: "unrecognized request '?WATCH'"))
        }
        let silent = try FakePeer(replies: [Data(#"{"class":"VERSION","release":"3.22"}"#.utf8 + [10])], hold: 3)
        XCTAssertThrowsError(try GPSDClient(address: silent.address).fix(timeout: .seconds(1))) { error in
            XCTAssertEqual(error as? GPSDError, .noFix(silent.address, seconds: 1, detail: "no position report arrived — is the receiver attached and powered?"))
        }
        let empty = try FakePeer(replies: [Data(#"{"class":"DEVICES","devices":[]}"#.utf8 + [10])], hold: 3)
        XCTAssertThrowsError(try GPSDClient(address: empty.address).fix(timeout: .seconds(1))) { error in
            XCTAssertEqual(error as? GPSDError, .noFix(empty.address, seconds: 1,
                                                       detail: "gpsd has no GPS receiver attached — plug one in (or start gpsd with its device)"))
        }
        let closing = try FakePeer(replies: [Data(#"{"class":"VERSION"}"#.utf8 + [10])], hold: 0)
        XCTAssertThrowsError(try GPSDClient(address: closing.address).fix(timeout: .seconds(5))) { error in
            XCTAssertEqual(error as? GPSDError, .closed(closing.address))
        }
    }

    func testTheFirstFixAccurateEnoughIsTakenAndProgressShowsTheWait() throws {
        func tpv(_ eph: Double) -> Data { Data(#"{"class":"TPV","mode":3,"lat":19.4326,"lon":-99.1332,"altHAE":2232,"eph":\#(eph)}"#.utf8 + [10]) }
        // The reports arrive split across writes, and a report is cut in the middle.
        let split = Data(#"{"class":"TPV","mode":3,"lat":19.4326,"lon":-99.1332,"eph":"#.utf8)
        let peer = try FakePeer(replies: [tpv(50), tpv(20), split, Data("4}\n".utf8), tpv(2)], hold: 2)
        var seen: [Double?] = []
        var best: [Double?] = []
        let point = try GPSDClient(address: peer.address).fix(accuracy: 5, timeout: .seconds(5)) {
            seen.append($0.accuracy)
            best.append($0.bestAccuracy)
        }
        XCTAssertEqual(point.accuracy, 4)
        XCTAssertEqual(seen, [50, 20, 4])
        XCTAssertEqual(best, [50, 20, 4])

        let poor = try FakePeer(replies: [tpv(50), tpv(20)], hold: 3)
        XCTAssertThrowsError(try GPSDClient(address: poor.address).fix(accuracy: 5, timeout: .seconds(1))) { error in
            XCTAssertEqual(error as? GPSDError, .noFix(poor.address, seconds: 1,
                                                      detail: "the best fix was ±20 m, not the 5 m required — move to open sky and try again"))
        }
    }

    func testReportsAreReadAsGpsdDocumentsThem() throws {
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV","mode":1}"#), .position(mode: 1, point: nil))
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV"}"#), .position(mode: 0, point: nil))
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV","mode":3}"#), .position(mode: 3, point: nil), "a mode without a position")
        // A 2D fix has no altitude even when one is sent; epx × epy gives the accuracy without eph.
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"alt":100,"epx":3,"epy":4}"#),
                       .position(mode: 2, point: try Geopoint(latitude: 1.5, longitude: 2.5, accuracy: 5)))
        // Older gpsd: alt without altHAE.
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV","mode":3,"lat":1.5,"lon":2.5,"alt":100}"#),
                       .position(mode: 3, point: try Geopoint(latitude: 1.5, longitude: 2.5, altitude: 100)))
        XCTAssertEqual(GPSDReport.parse(#"{"class":"TPV","mode":3,"lat":1.5,"lon":2.5,"alt":100,"altHAE":90,"eph":-1}"#),
                       .position(mode: 3, point: try Geopoint(latitude: 1.5, longitude: 2.5, altitude: 90)), "a negative eph is no accuracy")
        XCTAssertEqual(GPSDReport.parse(#"{"class":"DEVICES","devices":[{"path":"/dev/ttyACM0"}]}"#), .devices(count: 1))
        XCTAssertEqual(GPSDReport.parse(#"{"class":"SKY","satellites":[]}"#), .other("SKY"))
        XCTAssertEqual(GPSDReport.parse(#"{"class":"ERROR","message":"bad"}"#), .error("bad"))
        guard case .malformed = GPSDReport.parse(#"{"class":"TPV","mode":3,"lat":0,"lon":-200}"#) else { return XCTFail("a longitude off the globe") }
        guard case .malformed = GPSDReport.parse(String(repeating: "[", count: 100_000)[...]) else { return XCTFail("deep nesting") }
    }

    func testAddresses() throws {
        XCTAssertEqual(try GPSDAddress("127.0.0.1:2947"), GPSDAddress.local)
        XCTAssertEqual(try GPSDAddress("gps.local"), GPSDAddress(host: "gps.local", port: 2947))
        XCTAssertEqual(try GPSDAddress(" 10.0.0.5:3000 "), GPSDAddress(host: "10.0.0.5", port: 3000))
        XCTAssertEqual(try GPSDAddress("[::1]:2948"), GPSDAddress(host: "::1", port: 2948))
        XCTAssertEqual(try GPSDAddress("[::1]"), GPSDAddress(host: "::1", port: 2947))
        XCTAssertEqual(GPSDAddress(host: "::1", port: 2948).description, "[::1]:2948")
        XCTAssertEqual(GPSDAddress.local.description, "127.0.0.1:2947")
        for (text, reason) in [("", "it is empty"), (":2947", "the host is missing"), ("host:0", "the port \"0\" is not a number from 1 to 65535"),
                               ("host:65536", "the port \"65536\""), ("host:http", "the port \"http\""), ("host:", "the port \"\""),
                               ("::1", "write an IPv6 address in brackets"), ("[::1", "is not closed"), ("[::1]2947", "expected :PORT"),
                               ("gps host", "a host name is ASCII"), ("gps\u{0}:1", "a host name is ASCII"), ("hôte:1", "a host name is ASCII"),
                               ("host:99999999999999999999", "is not a number from 1 to 65535")] {
            XCTAssertThrowsError(try GPSDAddress(text), text) { error in
                guard case .invalidAddress(_, let said)? = error as? GPSDError else { return XCTFail("\(text): \(error)") }
                XCTAssertTrue(said.contains(reason), "\(text): \(said)")
                XCTAssertEqual((error as? GPSDError)?.failureClass, .configuration)
                XCTAssertFalse(error.localizedDescription.unicodeScalars.contains { $0.value == 0 })
            }
        }
    }
}
