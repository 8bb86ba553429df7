import Foundation
import MIKit
import TestSupport
import XCTest

/// The expression engine against an independent XPath 1.0 implementation: Python's elementpath
/// (`elementpath.XPath1Parser`). A few thousand random expressions of the pure XPath 1.0 part,
/// from a fixed seed, are written to a file, evaluated by ONE python process, and every result is
/// compared with MI's.
///
/// The generator stays inside what both implement the same way. elementpath departs from
/// XPath 1.0 in a few places, so these shapes are not generated (measured with elementpath 5.1):
/// - `'1' = 1` (string against number) is false there, true in XPath 1.0 §3.4;
/// - `'2' < '10'` compares strings there; XPath 1.0 compares numbers (MI does);
/// - `'a' < 1` is an error there; NaN comparisons are false in XPath 1.0;
/// - number literals are decimals there, so `1 div 3 * 3 = 1` differs; divisions therefore stay
///   out of comparisons, and literals are exact in binary (0.5, 0.25, 2.25 …);
/// - `x mod y` is floored there when x or y is a computed (float) number (`0.125 mod -0.875` gives
///   -0.75; XPath 1.0 truncates, giving 0.125), wrong for a negative whole divisor (`5 mod -3`
///   gives 1, XPath 1.0 gives 2) and an error when y is 0 (NaN in XPath 1.0), so `mod` is
///   generated between a literal and a positive literal (a 0 divisor is refused and counted);
/// - `NaN div 0` is -INF and `1 div -0` is INF there (NaN and -Infinity in IEEE 754, which
///   XPath 1.0 follows), so a divisor is a non-zero literal, or 0 under a literal numerator;
/// - `string(-0)` is `-0` there (`0` in XPath 1.0), and `string(1 div 0)` is `INF` (`Infinity`),
///   so string() wraps `(n) + 0` (which turns -0 into 0) and never a division;
/// - a parenthesised expression at the top comes back as a one-item list there: unwrapped.
final class ExpressionOracleTests: XCTestCase {
    private struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

        static let numbers = ["0", "1", "2", "3", "5", "7", "10", "100", "0.5", "1.5", "2.25", "0.25", "12.75", "0.125", "1000"]
        static let strings = ["''", "'a'", "'abc'", "'ABC'", "'12'", "'-3.5'", "' 7 '", "'0'", "'true'", "'false'", "'NaN'",
                              "'.5'", "'x y'", "'b'", "'  a  b '", "'5.'", "'-0'", "'bc'"]

        mutating func literal() -> String {
            let literal = pick(Self.numbers)
            return below(4) == 0 ? "-\(literal)" : literal
        }

        /// A number-valued expression; `exact` keeps divisions out (for comparisons and string()).
        mutating func number(_ depth: Int, exact: Bool) -> String {
            if depth <= 0 || below(4) == 0 { return literal() }
            switch below(exact ? 9 : 11) {
            case 0: return "-(\(number(depth - 1, exact: exact)))"
            case 1: return "(\(number(depth - 1, exact: exact)) + \(number(depth - 1, exact: exact)))"
            case 2: return "(\(number(depth - 1, exact: exact)) - \(number(depth - 1, exact: exact)))"
            case 3: return "(\(number(depth - 1, exact: exact)) * \(number(depth - 1, exact: exact)))"
            case 4: return "(\(literal()) mod \(pick(Self.numbers)))"
            case 5: return "number(\(string(depth - 1)))"
            case 6: return "string-length(\(string(depth - 1)))"
            case 7: return "round(\(number(depth - 1, exact: exact)))"
            case 8: return below(3) == 0 ? "number(\(boolean(depth - 1)))"
                : "\(pick(["floor", "ceiling"]))(\(number(depth - 1, exact: exact)))"
            case 9: return "(\(number(depth - 1, exact: exact)) div \(pick(["2", "-4", "8", "0.5", "3", "-0.25", "7"])))"
            default: return below(2) == 0
                ? "(\(pick(["1", "-1", "2.5", "-0.5", "0"])) div 0)"
                : "round(\(number(depth - 1, exact: false)) div \(pick(["2", "4", "8", "0.5"])))"
            }
        }

        mutating func string(_ depth: Int) -> String {
            if depth <= 0 || below(3) == 0 { return pick(Self.strings) }
            switch below(8) {
            case 0: return "concat(\(string(depth - 1)), \(string(depth - 1)))"
            case 1: return "concat(\(string(depth - 1)), \(string(depth - 1)), \(string(depth - 1)))"
            case 2: return "string(\(number(depth - 1, exact: true)) + 0)"
            case 3: return "string(\(boolean(depth - 1)))"
            case 4: return "substring-before(\(string(depth - 1)), \(pick(Self.strings)))"
            case 5: return "substring-after(\(string(depth - 1)), \(pick(Self.strings)))"
            case 6: return "normalize-space(\(string(depth - 1)))"
            default: return "translate(\(string(depth - 1)), 'abc', 'AB')"
            }
        }

        mutating func boolean(_ depth: Int) -> String {
            if depth <= 0 || below(5) == 0 { return pick(["true()", "false()"]) }
            switch below(13) {
            case 0: return "not(\(boolean(depth - 1)))"
            case 1: return "(\(boolean(depth - 1)) and \(boolean(depth - 1)))"
            case 2: return "(\(boolean(depth - 1)) or \(boolean(depth - 1)))"
            case 3, 4:
                let op = pick(["=", "!=", "<", "<=", ">", ">="])
                return "(\(number(depth - 1, exact: true)) \(op) \(number(depth - 1, exact: true)))"
            case 5: return "(\(string(depth - 1)) \(pick(["=", "!="])) \(string(depth - 1)))"
            case 6: return "(\(boolean(depth - 1)) \(pick(["=", "!="])) \(pick([number(depth - 1, exact: true), string(depth - 1)])))"
            case 7: return "(\(pick([number(depth - 1, exact: true), string(depth - 1)])) \(pick(["=", "!="])) \(boolean(depth - 1)))"
            case 8: return "contains(\(string(depth - 1)), \(string(depth - 1)))"
            case 9: return "starts-with(\(string(depth - 1)), \(string(depth - 1)))"
            case 10: return "boolean(\(string(depth - 1)))"
            case 11: return "boolean(\(number(depth - 1, exact: false)))"
            default: return "(\(boolean(depth - 1)) \(pick(["<", ">="])) \(boolean(depth - 1)))"
            }
        }

        mutating func expression() -> String {
            let depth = 1 + below(4)
            switch below(3) {
            case 0: return number(depth, exact: below(2) == 0)
            case 1: return string(depth)
            default: return boolean(depth)
            }
        }
    }

    private static let script = """
    import json, math, sys
    from decimal import Decimal
    import xml.etree.ElementTree as ET
    import elementpath
    root = ET.XML('<data/>')
    out = []
    for line in open(sys.argv[1], encoding='utf-8').read().split('\\n'):
        if not line:
            continue
        try:
            value = elementpath.select(root, line, parser=elementpath.XPath1Parser)
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            if isinstance(value, bool):
                out.append({'b': value})
            elif isinstance(value, (int, float, Decimal)):
                v = float(value)
                out.append({'n': 'NaN' if math.isnan(v) else ('Infinity' if v > 0 else '-Infinity') if math.isinf(v) else repr(v)})
            elif isinstance(value, str):
                out.append({'s': value})
            else:
                out.append({'e': 'unexpected result ' + repr(value)})
        except Exception as error:
            out.append({'e': str(error)})
    print(json.dumps(out))
    """

    func testRandomXPathExpressionsAgreeWithElementpath() throws {
        var generator = Generator(state: 20_261_126)
        var expressions: [String] = []
        var seen = Set<String>()
        while expressions.count < 3000 {
            let expression = generator.expression()
            if seen.insert(expression).inserted { expressions.append(expression) }
        }
        let folder = try TemporaryDirectory(prefix: "xpath-oracle")
        let file = folder.path("expressions.txt")
        try Data(expressions.joined(separator: "\n").utf8).write(to: file)
        let output = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.script, file.path])
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        XCTAssertEqual(results.count, expressions.count)

        let context = ExpressionContext(answers: [:], now: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC") ?? .current)
        var compared = 0, refused = 0, kinds: [String: Int] = [:]
        var mismatches: [String] = []
        for (expression, expected) in zip(expressions, results) {
            if expected["e"] != nil { refused += 1; continue }
            let mine: ExpressionValue
            do { mine = try Expression(expression).evaluate(in: context) } catch {
                mismatches.append("\(expression): MI failed with \(error), elementpath gave \(expected)")
                continue
            }
            compared += 1
            if let bool = expected["b"] as? Bool {
                kinds["boolean", default: 0] += 1
                if mine != .boolean(bool) { mismatches.append("\(expression): MI \(mine), elementpath \(bool)") }
            } else if let text = expected["n"] as? String {
                kinds["number", default: 0] += 1
                let theirs = Double(text) ?? (text == "Infinity" ? .infinity : text == "-Infinity" ? -.infinity : .nan)
                guard case .number(let value) = mine, Self.same(value, theirs) else {
                    mismatches.append("\(expression): MI \(mine), elementpath \(text)")
                    continue
                }
            } else if let text = expected["s"] as? String {
                kinds["string", default: 0] += 1
                if mine != .string(text) { mismatches.append("\(expression): MI \(mine), elementpath '\(text)'") }
            }
        }
        XCTAssertEqual(mismatches, [], "\(mismatches.count) of \(compared) differ")
        // The comparison must cover nearly everything generated, and all three kinds of result.
        XCTAssertGreaterThan(compared, 2700, "elementpath refused \(refused) expressions")
        XCTAssertGreaterThan(kinds["boolean", default: 0], 500)
        XCTAssertGreaterThan(kinds["number", default: 0], 500)
        XCTAssertGreaterThan(kinds["string", default: 0], 500)
    }

    /// NaN equals NaN here; otherwise equal within a relative 1e-9 (elementpath computes in decimals).
    static func same(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        if a.isInfinite || b.isInfinite { return a == b }
        return Swift.abs(a - b) <= 1e-9 * Swift.max(1, Swift.abs(a), Swift.abs(b))
    }
}
