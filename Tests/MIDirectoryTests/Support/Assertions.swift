import MIDirectory
import XCTest

/// Asserts that `body` throws a `DirectoryError` and returns it for further checks.
@discardableResult
func assertDirectoryError<T>(
    _ body: @autoclosure () throws -> T,
    file: StaticString = #filePath,
    line: UInt = #line
) -> DirectoryError? {
    do {
        let value = try body()
        XCTFail("expected a DirectoryError, got \(value)", file: file, line: line)
        return nil
    } catch let error as DirectoryError {
        return error
    } catch {
        XCTFail("expected a DirectoryError, got \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<T>(
    _ expected: DirectoryError,
    _ body: @autoclosure () throws -> T,
    file: StaticString = #filePath,
    line: UInt = #line
) {
    guard let error = assertDirectoryError(try body(), file: file, line: line) else { return }
    XCTAssertEqual(error, expected, file: file, line: line)
}
