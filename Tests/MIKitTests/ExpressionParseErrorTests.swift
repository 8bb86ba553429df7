import Foundation
import MIKit
import XCTest

/// Refusals when an expression is parsed: the 0-based position and what was expected, unknown
/// functions named, arity, the limits, and random input that must never crash or hang.
final class ExpressionParseErrorTests: XCTestCase {
    private func refusal(_ text: String, limits: ExpressionLimits = .standard) -> ExpressionError? {
        do {
            _ = try Expression(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    func testPositionsAndMessages() {
        let cases: [(String, ExpressionError.Kind, Int, String)] = [
            ("", .syntax, 0, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found end of expression"),
            ("1 +", .syntax, 3, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found end of expression"),
            ("1 + * 2", .syntax, 4, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found '*'"),
            ("(1 + 2", .syntax, 6, "expected ')' to close '(' at position 0 but found end of expression"),
            ("(1 + 2))", .syntax, 7, "expected an operator or the end of the expression but found ')'"),
            ("1 2", .syntax, 2, "expected an operator or the end of the expression but found the number 2"),
            ("${a} ${b}", .syntax, 5, "expected an operator or the end of the expression but found ${b}"),
            ("concat('a' 'b')", .syntax, 11, "expected ')' to close the arguments of concat() at position 0 but found the string 'b' (is an operator or a ',' missing?)"),
            ("concat('a',)", .syntax, 11, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found ')'"),
            ("'abc", .syntax, 0, "the string starting here has no closing '"),
            ("x = \"abc", .syntax, 4, "the string starting here has no closing \""),
            ("${a", .syntax, 3, "expected '}' to close ${a but found end of expression"),
            ("${a b}", .syntax, 3, "expected '}' to close ${a but found ' '"),
            ("${}", .syntax, 2, "expected a question name inside ${}"),
            ("${1a}", .syntax, 2, "a question name must start with a letter or '_', not '1'"),
            ("$a", .syntax, 0, "expected '{' after '$' (a question is referred to as ${name})"),
            ("1 ! 2", .syntax, 2, "'!' must be followed by '=' ('!=' means not equal; use not(…) to negate)"),
            ("${a} == 1", .syntax, 6, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found '='"),
            ("/data/a", .syntax, 0, "paths with '/' are not supported (use 'div' to divide, ${name} to refer to a question)"),
            ("1 / 2", .syntax, 2, "paths with '/' are not supported (use 'div' to divide, ${name} to refer to a question)"),
            ("../a", .syntax, 0, "'..' (the parent) is only supported as position(..); refer to a question as ${name}"),
            ("yes", .syntax, 0, "expected '(' after 'yes': a bare name is not supported; refer to a question as ${yes} or quote a text as 'yes'"),
            ("${a} = true", .syntax, 7, "write true() with parentheses (a bare 'true' is a path, which is not supported)"),
            ("and 1", .syntax, 0, "expected an operand before 'and' but found the operator 'and'"),
            ("1 and or 2", .syntax, 6, "expected an operand before 'or' but found the operator 'or'"),
            ("12abc", .syntax, 2, "a number cannot be followed directly by 'a'"),
            ("1e3", .syntax, 1, "a number cannot be followed directly by 'e'"),
            ("2 # 3", .syntax, 2, "unexpected character '#'"),
            ("1 +\u{0} 2", .syntax, 3, "unexpected character U+0"),
            ("ñ = 'ñ' + @", .syntax, 10, "unexpected character '@'"),
            ("foo(1)", .unknownFunction, 0, "unknown function 'foo()'"),
            ("1 + jr:choice-name(., 'x')", .unknownFunction, 4, "unknown function 'jr:choice-name()'"),
            ("if(pulldata('a', 'b', 'c', 'd'), 1, 2)", .unknownFunction, 3, "unknown function 'pulldata()'"),
            ("Concat('a', 'b')", .unknownFunction, 0, "unknown function 'Concat()'"),
            ("not(1, 2)", .arity, 0, "not() takes 1 argument but was given 2"),
            ("1 + if(true(), 1)", .arity, 4, "if() takes 3 arguments but was given 2"),
            ("today(1)", .arity, 0, "today() takes 0 arguments but was given 1"),
            ("substr('a')", .arity, 0, "substr() takes 2 to 3 arguments but was given 1"),
            ("concat()", .arity, 0, "concat() takes at least 1 argument but was given 0"),
            ("round(1, 2, 3)", .arity, 0, "round() takes 1 to 2 arguments but was given 3"),
            ("regex(., '(a')", .regex, 0, "'(a' is not a valid regular expression"),
        ]
        for (text, kind, position, message) in cases {
            guard let error = refusal(text) else { XCTFail("\(text.debugDescription) was accepted"); continue }
            XCTAssertEqual(error.kind, kind, text)
            XCTAssertEqual(error.position, position, text)
            XCTAssertEqual(error.message, message, text)
        }
        XCTAssertEqual(refusal("1 +")?.description,
                       "at position 3 (counting from 0): expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found end of expression")
    }

    func testEveryFunctionIsKnownByItsName() throws {
        for function in ExpressionFunction.allCases {
            let (minimum, _) = function.arity
            let text = "\(function.rawValue)(\(Array(repeating: "'2026-11-26'", count: minimum).joined(separator: ", ")))"
            XCTAssertNoThrow(try Expression(text), text)
        }
        XCTAssertEqual(ExpressionFunction.allCases.count, 54)
    }

    func testLengthLimit() {
        let long = "1" + String(repeating: " + 1", count: 2500)
        let error = refusal(long)
        XCTAssertEqual(error?.kind, .tooLong)
        XCTAssertEqual(error?.message, "the expression has 10001 characters; at most 10000 are allowed")
        XCTAssertNil(refusal(String(repeating: " ", count: 9998) + "1"))
    }

    func testDepthIsCheckedBeforeRecursing() {
        // 100,000 opening parentheses, minus signs, or nested calls: refused with a clear message,
        // no stack overflow (the length limit is raised so the depth check is what answers).
        let generous = ExpressionLimits(maxLength: 1_000_000)
        for text in [String(repeating: "(", count: 100_000) + "1" + String(repeating: ")", count: 100_000),
                     String(repeating: "(", count: 100_000),
                     String(repeating: "-", count: 100_000) + "1",
                     String(repeating: "not(", count: 25_000) + "1" + String(repeating: ")", count: 25_000),
                     "1" + String(repeating: " + 1", count: 25_000)] {
            let error = refusal(text, limits: generous)
            XCTAssertEqual(error?.kind, .tooDeep, String(text.prefix(10)))
            XCTAssertEqual(error?.message, "the expression nests more than 200 levels deep (parentheses, function calls and chained operators)")
        }
        // With the standard limits, the length check answers first.
        XCTAssertEqual(refusal(String(repeating: "(", count: 100_000))?.kind, .tooLong)
        // Just inside the limit is fine, and evaluates.
        let deep = String(repeating: "(", count: 150) + "1" + String(repeating: ")", count: 150)
        XCTAssertNil(refusal(deep))
        XCTAssertEqual(refusal(String(repeating: "(", count: 201) + "1" + String(repeating: ")", count: 201))?.position, 199)
        XCTAssertNil(refusal("1" + String(repeating: " + 1", count: 150)))
    }

    func testWorkLimit() throws {
        // 1,000 instances compared with 1,000 instances is a million pairs: over the limit.
        let big = ExpressionValue.nodes((1...1000).map(String.init))
        let context = ExpressionContext(answers: ["r": big], now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC") ?? .current)
        XCTAssertThrowsError(try Expression("${r} = ${r}").evaluate(in: context)) { error in
            XCTAssertEqual(error as? ExpressionError, ExpressionError(.tooMuchWork, at: nil, "evaluating the expression took more than 1000000 steps"))
        }
        XCTAssertEqual(try Expression("count(${r}) = 1000 and sum(${r}) = 500500").evaluate(in: context), .boolean(true))
        // Strings cannot grow past the limit either.
        let small = ExpressionLimits(maxStringLength: 1000)
        let words = ExpressionContext(answers: ["t": .string(String(repeating: "x", count: 600))], now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC") ?? .current)
        XCTAssertThrowsError(try Expression("concat(${t}, ${t})", limits: small).evaluate(in: words)) { error in
            XCTAssertEqual((error as? ExpressionError)?.kind, .tooMuchWork)
            XCTAssertEqual((error as? ExpressionError)?.position, 0)
        }
        // Doubling through nesting runs out of steps, not memory.
        var doubling = "'xxxxxxxxxxxxxxxx'"
        for _ in 0..<9 { doubling = "concat(\(doubling), \(doubling))" }
        XCTAssertThrowsError(try Expression(doubling, limits: ExpressionLimits(maxLength: 100_000, maxWork: 500)).evaluate(in: words)) { error in
            XCTAssertEqual((error as? ExpressionError)?.kind, .tooMuchWork)
        }
    }

    func testRandomBytesNeverCrash() {
        var state: UInt64 = 0x5EED_2026_1126
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let context = ExpressionContext(answers: ["a": .string("3"), "b": .nodes(["1", "2"])], current: .string("x y"), position: 1,
                                        now: Date(timeIntervalSince1970: 1_795_649_400), timeZone: TimeZone(identifier: "UTC") ?? .current)
        let pieces = ["${a}", "${b}", ".", "(", ")", ",", "+", "-", "*", " div ", " mod ", "=", "!=", "<", "<=", ">", ">=", " and ",
                      " or ", "'s'", "\"t\"", "1", "2.5", ".5", "0", "not(", "if(", "concat(", "selected(", "substr(", "regex(",
                      "format-date(", "date(", "today()", "now()", "sum(", "count(", "round(", "'%Y'", "'[a-z]+'", "$", "{", "}"]
        var parsed = 0
        for round in 0..<6000 {
            var text = ""
            if round % 2 == 0 {
                let bytes = (0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) }
                text = String(decoding: bytes, as: UTF8.self)
            } else {
                for _ in 0..<Int(next() % 14) { text += pieces[Int(next() % UInt64(pieces.count))] }
            }
            do {
                let expression = try Expression(text)
                parsed += 1
                _ = try? expression.evaluate(in: context)
            } catch {
                XCTAssertNotNil(error.position.map { $0 >= 0 && $0 <= text.count }, text.debugDescription)
                XCTAssertFalse(error.message.isEmpty)
            }
        }
        XCTAssertGreaterThan(parsed, 50, "the token soup should parse now and then")
    }
}
