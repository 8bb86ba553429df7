import Foundation
import MIDevices
import MIKit
import TestSupport
import XCTest

/// `BarcodeReader` through the real zbarimg, on codes drawn by PyPI's qrcode and python-barcode.
final class BarcodeReaderTests: XCTestCase {
    var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "mi-barcodes")
        let script = try XCTUnwrap(Bundle.module.url(forResource: "draw_codes", withExtension: "py"))
        // The python3 on PATH, whose modules scripts/setup.sh checks and installs.
        _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, folder.url.path])
    }

    func image(_ name: String) -> URL { folder.path(name) }

    func testAQRCodeAndACode128AreRead() throws {
        let reader = BarcodeReader()
        XCTAssertNotNil(reader.executable, "zbarimg is installed by scripts/setup.sh (zbar-tools)")
        XCTAssertEqual(try reader.read(imageAt: image("qr.png")), ["MI-HYD-00042"])
        XCTAssertEqual(try reader.read(imageAt: image("code128.png")), ["PUMP-7731"])
        XCTAssertEqual(try reader.read(imageAt: image("both.png")).sorted(), ["MI-HYD-00042", "PUMP-7731"])
    }

    func testAnImageWithoutACodeSaysSo() {
        XCTAssertThrowsError(try BarcodeReader().read(imageAt: image("blank.png"))) { error in
            XCTAssertEqual(error as? BarcodeError, .noCode(image("blank.png").path))
            XCTAssertEqual(error.localizedDescription,
                           "no barcode or QR code found in \(image("blank.png").path) — take the photo again closer and in focus, or type the code")
            XCTAssertEqual((error as? BarcodeError)?.failureClass, .badData)
        }
    }

    func testMissingUnreadableAndFolderAreNamed() throws {
        let missing = image("nowhere.jpg")
        XCTAssertThrowsError(try BarcodeReader().read(imageAt: missing)) { error in
            XCTAssertEqual(error.localizedDescription, "\(missing.path): no such file")
            XCTAssertEqual((error as? BarcodeError)?.failureClass, .notFound)
        }
        let text = image("notes.png")
        try Files.write("these are not pixels\n", to: text)
        XCTAssertThrowsError(try BarcodeReader().read(imageAt: text)) { error in
            guard case .unreadable(let path, let reason)? = error as? BarcodeError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, text.path)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertFalse(reason.hasPrefix("ERROR"), "zbarimg's prefix is dropped: \(reason)")
            XCTAssertTrue(error.localizedDescription.hasPrefix("\(text.path) cannot be read as an image ("), error.localizedDescription)
        }
        let empty = image("empty.jpg")
        try Files.write(Data(), to: empty)
        XCTAssertThrowsError(try BarcodeReader().read(imageAt: empty)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, "image-unreadable")
        }
        XCTAssertThrowsError(try BarcodeReader().read(imageAt: folder.url)) { error in
            XCTAssertEqual(error as? BarcodeError, .notAFile(folder.url.path))
        }
    }

    func testFileNamesAreNeverReadByAShell() throws {
        // A leading dash, spaces, quotes and shell syntax: passed to zbarimg as they are.
        let canary = folder.path("pwned")
        for name in ["-q --help.png", "tag photo 'x' \"y\".png", "$(touch pwned).png", "`touch pwned`;.png", "qr\nline.png"] {
            let copy = image(name)
            try FileManager.default.copyItem(at: image("qr.png"), to: copy)
            XCTAssertEqual(try BarcodeReader().read(imageAt: copy), ["MI-HYD-00042"], name)
        }
        XCTAssertFalse(Files.exists(canary), "no shell ran the name")
    }

    func testAReadThatTakesTooLongIsStopped() throws {
        // Stands in for zbarimg stuck on a hostile image: it never answers.
        let stuck = folder.path("stuck-zbarimg")
        try Files.write("#!/bin/sh\nexec sleep 60\n", to: stuck)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stuck.path)
        let clock = ContinuousClock()
        let started = clock.now
        XCTAssertThrowsError(try BarcodeReader(executable: stuck).read(imageAt: image("qr.png"), timeout: .seconds(1))) { error in
            XCTAssertEqual(error as? BarcodeError, .timedOut(image("qr.png").path, seconds: 1))
            XCTAssertTrue(error.localizedDescription.contains("took more than 1 s and was stopped"))
        }
        XCTAssertLessThan(started.duration(to: clock.now), .seconds(10))
        // The real zbarimg well within its time.
        XCTAssertEqual(try BarcodeReader().read(imageAt: image("qr.png"), timeout: .seconds(20)), ["MI-HYD-00042"])
    }

    func testZbarimgMissingNamesTheDebianPackage() {
        let reader = BarcodeReader(path: "/nonexistent:/also-not-there")
        XCTAssertNil(reader.executable)
        XCTAssertThrowsError(try reader.read(imageAt: image("qr.png"))) { error in
            XCTAssertEqual(error as? BarcodeError, .toolMissing)
            XCTAssertTrue(error.localizedDescription.contains("install Debian's zbar-tools package (apt-get install zbar-tools)"))
            XCTAssertEqual((error as? BarcodeError)?.failureClass, .configuration)
        }
        let gone = BarcodeReader(executable: URL(fileURLWithPath: "/nonexistent/zbarimg"))
        XCTAssertThrowsError(try gone.read(imageAt: image("qr.png"))) { error in
            XCTAssertEqual(error as? BarcodeError, .toolMissing)
        }
        // A missing photo is reported as such even without zbarimg.
        XCTAssertThrowsError(try reader.read(imageAt: image("nowhere.png"))) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, "image-not-found")
        }
    }
}
