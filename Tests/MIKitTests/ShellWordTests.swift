import Foundation
import MIKit
import XCTest

final class ShellWordTests: XCTestCase {
    func testPlainNamesStayBare() {
        for word in ["fill", "pump-inspection-20261126-0506", "ana/pump_7", "v1.2", "a@b:c,d+e%f", "Prüfung"] {
            XCTAssertEqual(ShellWord.quoted(word), word)
        }
    }

    func testOtherWordsAreSingleQuotedWithQuotesWrittenApart() {
        XCTAssertEqual(ShellWord.quoted("Pump P-101 north"), "'Pump P-101 north'")
        XCTAssertEqual(ShellWord.quoted("O'Brien"), #"'O'\''Brien'"#)
        XCTAssertEqual(ShellWord.quoted(""), "''")
        XCTAssertEqual(ShellWord.quoted("-rf"), "-rf", "quoting cannot change what a leading dash means to mi")
        XCTAssertEqual(ShellWord.mi("fill", "Pump P-101 north"), "mi fill 'Pump P-101 north'")
    }

    /// What bash reads back from each quoted word is the word itself.
    func testBashReadsEveryQuotedWordBackUnchanged() throws {
        let words = ["Pump P-101 north", "O'Brien's \"best\" pump", "cost $HOME `id` $(id) & more; *", "a\\b", "tab\there",
                     "naïve — ümlaut #1", "~user", "x=1", "!bang", "''", "{a,b}", "[ab]?", "line\nbreak", ""]
        let script = words.map { "printf '%s\\0' " + ShellWord.quoted($0) }.joined(separator: "; ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let read = String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertEqual(read, words)
    }
}
