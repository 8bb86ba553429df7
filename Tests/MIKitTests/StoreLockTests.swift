import Foundation
import MIKit
import TestSupport
import XCTest

private struct ChildProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

final class StoreLockTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: URL { directory.path("Documents") }
    private var lockFile: URL { root.appendingPathComponent(".lock") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "mikit-lock")
        try DurableFile.makeFolder(root)
    }

    override func tearDown() {
        directory = nil
    }

    /// Runs `flock -n <lock> true`: 0 when the lock was free, 1 when another process holds it.
    private func probeLockStatus() throws -> Int32 {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        probe.arguments = ["-n", lockFile.path, "true"]
        try probe.run()
        probe.waitUntilExit()
        return probe.terminationStatus
    }

    /// Starts `flock -x <lock> -c …` holding the lock until its stdin is closed, and waits until it holds it.
    private func holdLockInChildProcess() throws -> (Process, Pipe) {
        let input = Pipe()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // Holds the lock until its stdin is closed (or for 5 s at most, should the test die).
        child.arguments = ["-x", lockFile.path, "-c", "timeout 5 head -c 1 >/dev/null; exit 0"]
        child.standardInput = input
        try child.run()
        let deadline = Date().addingTimeInterval(5)
        while try probeLockStatus() == 0 {
            guard Date() < deadline, child.isRunning else {
                child.terminate()
                throw ChildProcessError(message: "the child flock never took the lock")
            }
            usleep(20_000)
        }
        return (child, input)
    }

    func testLockHeldByAnotherProcessMakesStoreLockBusy() throws {
        let (child, input) = try holdLockInChildProcess()
        defer { if child.isRunning { child.terminate() } }

        let started = Date()
        XCTAssertThrowsError(try StoreLock(root: root, timeout: 0.3)) { error in
            XCTAssertEqual(error as? StoreError, .busy(path: root.path, seconds: 0))
            XCTAssertTrue(error.localizedDescription.contains("busy"), error.localizedDescription)
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.25, "it waits for the timeout before giving up")
        XCTAssertLessThan(waited, 2, "and not much longer")

        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)

        let lock = try StoreLock(root: root, timeout: 1)
        XCTAssertEqual(try probeLockStatus(), 1, "now this process holds it")
        withExtendedLifetime(lock) {}
    }

    func testStoreLockIsSeenByOtherProcessesAndReleasedOnDeinit() throws {
        var lock: StoreLock? = try StoreLock(root: root, timeout: 1)
        XCTAssertNotNil(lock)
        XCTAssertEqual(try probeLockStatus(), 1, "another process cannot take it")
        lock = nil
        XCTAssertEqual(try probeLockStatus(), 0, "released when the StoreLock goes away")
    }

    func testSecondLockInTheSameProcessWaitsAndTimesOut() throws {
        var first: StoreLock? = try StoreLock(root: root, timeout: 1)
        XCTAssertNotNil(first)
        XCTAssertThrowsError(try StoreLock(root: root, timeout: 0.1)) { error in
            guard case StoreError.busy? = error as? StoreError else { return XCTFail("expected busy, got \(error)") }
        }
        first = nil
        XCTAssertNoThrow(try StoreLock(root: root, timeout: 0.1))
    }

    func testStoreLockCreatesTheStoreRoot() throws {
        let store = Store(root: directory.path("fresh", "Documents"))
        let lock = try store.lock(timeout: 1)
        XCTAssertTrue(Files.exists(store.root.appendingPathComponent(".lock")))
        withExtendedLifetime(lock) {}
    }
}
