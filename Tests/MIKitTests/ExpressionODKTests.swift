import Foundation
import MIKit
import XCTest

/// ODK's own functions and XPath 1.0's conversion rules, against cases worked by hand from the
/// ODK XForms specification (getodk.github.io/xforms-spec, "XPath Functions" in the Bindings
/// section) and the XPath 1.0 recommendation (w3.org/TR/1999/REC-xpath-19991116).
final class ExpressionODKTests: XCTestCase {
    /// 2026-11-25T23:30:00Z: already 2026-11-26 in Madrid (UTC+1 in November), still the 25th in UTC.
    static let clock = Date(timeIntervalSince1970: 1_795_649_400)
    static let madrid = TimeZone(identifier: "Europe/Madrid") ?? .current
    static let utc = TimeZone(identifier: "UTC") ?? .current

    private func value(_ text: String, _ answers: [String: ExpressionValue] = [:], current: ExpressionValue = .string(""),
                       position: Int? = nil, zone: TimeZone = ExpressionODKTests.madrid,
                       file: StaticString = #filePath, line: UInt = #line) -> ExpressionValue? {
        do {
            let context = ExpressionContext(answers: answers, current: current, position: position, now: Self.clock, timeZone: zone)
            return try Expression(text).evaluate(in: context)
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return nil
        }
    }

    private func string(_ text: String, _ answers: [String: ExpressionValue] = [:], current: ExpressionValue = .string(""),
                        zone: TimeZone = ExpressionODKTests.madrid, file: StaticString = #filePath, line: UInt = #line) -> String? {
        value(text, answers, current: current, zone: zone, file: file, line: line)?.stringValue
    }

    // MARK: Select functions

    func testSelected() {
        // Spec: "selected(string list, string value) — Checks if value is equal to an item in a
        // space-separated list (e.g. select data type values)."
        let leaks: [String: ExpressionValue] = ["leaks": .string("seal gasket")]
        XCTAssertEqual(value("selected(${leaks}, 'seal')", leaks), .boolean(true))
        XCTAssertEqual(value("selected(${leaks}, 'gasket')", leaks), .boolean(true))
        XCTAssertEqual(value("selected(${leaks}, 'none')", leaks), .boolean(false))
        XCTAssertEqual(value("selected(${leaks}, 'sea')", leaks), .boolean(false), "an item, not a substring")
        XCTAssertEqual(value("selected('', 'seal')"), .boolean(false))
        // The spec's own constraint example: selected(., 'c') and selected(., 'd').
        XCTAssertEqual(value("selected(., 'c') and selected(., 'd')", current: .string("a c d")), .boolean(true))
        XCTAssertEqual(value("selected(., 'c') and selected(., 'd')", current: .string("a c")), .boolean(false))
        // "None only alone", as a template constraint writes it.
        let rule = "not(selected(., 'none')) or count-selected(.) = 1"
        XCTAssertEqual(value(rule, current: .string("none")), .boolean(true))
        XCTAssertEqual(value(rule, current: .string("seal none")), .boolean(false))
    }

    func testCountSelected() {
        // Spec: "count-selected(node) — Returns the number of items in a space-separated list."
        XCTAssertEqual(value("count-selected('a b c')"), .number(3))
        XCTAssertEqual(value("count-selected('  a   b ')"), .number(2))
        XCTAssertEqual(value("count-selected('')"), .number(0))
        XCTAssertEqual(value("count-selected(${unanswered})"), .number(0))
    }

    func testSelectedAt() {
        // Spec: "selected-at(string list, number index) — the value of the item at the 0-based
        // index of a space-separated list or empty string if the item does not exist".
        XCTAssertEqual(value("selected-at('a b c', 0)"), .string("a"))
        XCTAssertEqual(value("selected-at('a b c', 2)"), .string("c"))
        XCTAssertEqual(value("selected-at('a b c', 3)"), .string(""))
        XCTAssertEqual(value("selected-at('a b c', -1)"), .string(""))
        XCTAssertEqual(value("selected-at('a b c', 1.7)"), .string("b"))
        XCTAssertEqual(value("selected-at('a b c', 'x')"), .string(""))
    }

    // MARK: Boolean functions

    func testIfAndCoalesce() {
        // Spec: "if(boolean condition, * then, * else)" — the branches are objects, not strings.
        XCTAssertEqual(value("if(1 > 2, 'yes', 'no')"), .string("no"))
        XCTAssertEqual(value("if(${a} = '', 0, ${a} * 2)", ["a": .string("21")]), .number(42))
        XCTAssertEqual(value("if('false', 1, 2)"), .number(1), "the string 'false' is non-empty, so true (spec note)")
        // if() evaluates only the branch it takes: the other may fail.
        XCTAssertEqual(value("if(true(), 1, position())"), .number(1))
        // Spec: "coalesce(string arg1, string arg2) — first non-empty value of arg1 and arg2 or
        // empty if both are empty".
        XCTAssertEqual(value("coalesce('', 'x')"), .string("x"))
        XCTAssertEqual(value("coalesce('y', 'x')"), .string("y"))
        XCTAssertEqual(value("coalesce(${a}, ${b})"), .string(""))
        XCTAssertEqual(value("coalesce(${a}, 0) + 1"), .number(1))
    }

    func testRegex() {
        // Spec: "regex(string value, string expression) — '[0-9]+' becomes /[0-9]+/" — a search,
        // so anchors are needed for a whole match.
        XCTAssertEqual(value("regex('PUMP-0042', '[0-9]+')"), .boolean(true))
        XCTAssertEqual(value("regex('PUMP-0042', '^[0-9]+$')"), .boolean(false))
        XCTAssertEqual(value("regex(., '^[A-Z]{4}-[0-9]{4}$')", current: .string("PUMP-0042")), .boolean(true))
        XCTAssertEqual(value("regex('', '^$')"), .boolean(true))
        XCTAssertEqual(value("regex('ñandú', '^\\p{L}+$')"), .boolean(true))
    }

    func testRegexLimits() {
        // Nested repetition is refused when parsed, naming regex() — never run.
        for pattern in ["(a+)+", "(a*)*b", "(a|aa)+", "((ab)*c)*", "(x+){2,}"] {
            XCTAssertThrowsError(try Expression("regex(., '\(pattern)')"), pattern) { error in
                XCTAssertEqual((error as? ExpressionError)?.kind, .regex)
                XCTAssertEqual((error as? ExpressionError)?.position, 0)
            }
        }
        // Bounded or flat ones are fine.
        for pattern in ["(ab)?c", "([0-9]{3}-)?[0-9]{4}", "^(yes|no)$", "[a+]+", "\\(a+\\)+"] {
            XCTAssertNoThrow(try Expression("regex(., '\(pattern)')"), pattern)
        }
        XCTAssertThrowsError(try Expression("regex(., '[unclosed')")) { error in
            XCTAssertEqual((error as? ExpressionError)?.message, "'[unclosed' is not a valid regular expression")
        }
        XCTAssertThrowsError(try Expression("regex(., '\(String(repeating: "a", count: 501))')")) { error in
            XCTAssertEqual((error as? ExpressionError)?.message, "the regex pattern has 501 characters; at most 500 are allowed")
        }
        // A pattern that comes from an answer is checked when evaluated.
        let context = ExpressionContext(answers: ["p": .string("(a+)+$")], now: Self.clock, timeZone: Self.utc)
        XCTAssertThrowsError(try Expression("regex('aaaaaaaaaaaaaaaaaaaaaaaaaaaaab', ${p})").evaluate(in: context)) { error in
            XCTAssertEqual((error as? ExpressionError)?.kind, .regex)
        }
        let long = ExpressionContext(answers: ["t": .string(String(repeating: "a", count: 10_001))], now: Self.clock, timeZone: Self.utc)
        XCTAssertThrowsError(try Expression("regex(${t}, 'a')").evaluate(in: long)) { error in
            XCTAssertEqual((error as? ExpressionError)?.message, "regex() was given a text of 10001 characters; at most 10000 are allowed")
        }
    }

    // MARK: Strings

    func testSubstrIsZeroBased() {
        // Spec: "substr(string value, number start, number end?) — the substring beginning at the
        // specified 0-based start index and extends to the character at end index - 1."
        XCTAssertEqual(value("substr('abcdef', 0, 2)"), .string("ab"))
        XCTAssertEqual(value("substr('abcdef', 2)"), .string("cdef"))
        XCTAssertEqual(value("substr('abcdef', 1, 3)"), .string("bc"))
        XCTAssertEqual(value("substr('abcdef', 4, 2)"), .string(""))
        XCTAssertEqual(value("substr('abcdef', 3, 100)"), .string("def"))
        XCTAssertEqual(value("substr('abcdef', -2)"), .string("ef"), "negative counts from the end, as JavaRosa")
        XCTAssertEqual(value("substr('ñandú', 1, 4)"), .string("and"))
    }

    func testStringFunctions() {
        XCTAssertEqual(value("concat('a', 1, true(), ${r})", ["r": .nodes(["x", "y"])]), .string("a1truexy"),
                       "spec: concat joins all node values of a node-set")
        XCTAssertEqual(value("concat('only')"), .string("only"), "spec: concat may have one argument")
        XCTAssertEqual(value("string-length('ñandú')"), .number(5))
        XCTAssertEqual(value("string-length(.)", current: .string("abc")), .number(3))
        XCTAssertEqual(value("ends-with('report.pdf', '.pdf')"), .boolean(true))
        XCTAssertEqual(value("starts-with('report.pdf', 'rep')"), .boolean(true))
        XCTAssertEqual(value("contains('report.pdf', 'port')"), .boolean(true))
        XCTAssertEqual(value("substring-before('2026-11-26', '-')"), .string("2026"))
        XCTAssertEqual(value("substring-after('2026-11-26', '-')"), .string("11-26"))
        XCTAssertEqual(value("translate('bar', 'abc', 'ABC')"), .string("BAr"))
        XCTAssertEqual(value("normalize-space('  a \t b  ')"), .string("a b"))
        XCTAssertEqual(value("boolean-from-string('1')"), .boolean(true))
        XCTAssertEqual(value("boolean-from-string('yes')"), .boolean(false))
    }

    // MARK: Numbers

    func testNumberFunctions() {
        XCTAssertEqual(value("int(2.7)"), .number(2))
        XCTAssertEqual(value("int(-2.7)"), .number(-2), "spec: discards the fractional component")
        XCTAssertEqual(value("round(2.5)"), .number(3))
        XCTAssertEqual(value("round(-2.5)"), .number(-2), "XPath: halves towards +∞")
        XCTAssertEqual(value("round(3.14159, 2)"), .number(3.14), "spec: the second argument is the number of decimals")
        XCTAssertEqual(value("round(1.25, 1)"), .number(1.3))
        XCTAssertEqual(value("round(-1.25, 1)"), .number(-1.3), "ODK: half away from zero with decimals")
        XCTAssertEqual(value("round(1234.5, -2)"), .number(1200))
        XCTAssertEqual(value("pow(2, 10)"), .number(1024))
        XCTAssertEqual(value("sqrt(16)"), .number(4))
        XCTAssertEqual(value("abs(-3)"), .number(3))
        XCTAssertEqual(value("exp(0)"), .number(1))
        XCTAssertEqual(value("log(1)"), .number(0))
        XCTAssertEqual(value("log10(1000)"), .number(3))
        XCTAssertEqual(value("sin(0) + cos(0) + tan(0) + asin(0) + acos(1) + atan(0)"), .number(1))
        XCTAssertEqual(value("atan2(1, 1) * 4 = pi()"), .boolean(true))
        XCTAssertEqual(value("floor(-1.5) + ceiling(1.2)"), .number(0))
        guard case .number(let nan)? = value("sqrt(-1)") else { return XCTFail("a number") }
        XCTAssertTrue(nan.isNaN)
    }

    func testRepeatsGiveLists() {
        // A reference into a repeat from outside it is a node-set: sum, count, min, max walk it.
        let pumps: [String: ExpressionValue] = ["amps": .nodes(["12", "7.5", "30"]), "empty": .nodes([])]
        XCTAssertEqual(value("sum(${amps})", pumps), .number(49.5))
        XCTAssertEqual(value("count(${amps})", pumps), .number(3))
        XCTAssertEqual(value("min(${amps})", pumps), .number(7.5))
        XCTAssertEqual(value("max(${amps}, 40)", pumps), .number(40))
        XCTAssertEqual(value("count(${empty})", pumps), .number(0))
        XCTAssertEqual(value("sum(${empty})", pumps), .number(0))
        XCTAssertEqual(value("${amps} > 25", pumps), .boolean(true), "XPath: some node compares true")
        XCTAssertEqual(value("${amps} = 7.5", pumps), .boolean(true))
        XCTAssertEqual(value("${empty} = ''", pumps), .boolean(false), "an empty node-set equals nothing")
        XCTAssertEqual(value("count-non-empty(${amps})", ["amps": .nodes(["1", "", "3"])]), .number(2))
        guard case .number(let empty)? = value("max(${empty})", pumps) else { return XCTFail("a number") }
        XCTAssertTrue(empty.isNaN)
        XCTAssertEqual(value("position()", position: 3), .number(3))
        XCTAssertThrowsError(try Expression("position()").evaluate(in: ExpressionContext(answers: [:], now: Self.clock, timeZone: Self.utc)))
    }

    func testResolverHookMapsNamesToPaths() throws {
        // The form engine maps a name to the instance the expression stands in.
        let answers = ["pumps[1]/amps": "12", "pumps[2]/amps": "31", "site": "north"]
        let context = ExpressionContext(now: Self.clock, timeZone: Self.utc, position: 2) { name throws(ExpressionError) in
            let path = name == "amps" ? "pumps[2]/amps" : name
            guard let answer = answers[path] else { throw ExpressionError(.reference, at: nil, "no answer at \(path)") }
            return .string(answer)
        }
        let expression = try Expression("${amps} > 30 and ${site} = 'north'")
        XCTAssertEqual(try expression.evaluate(in: context), .boolean(true))
        XCTAssertThrowsError(try Expression("${missing} + 1").evaluate(in: context)) { error in
            XCTAssertEqual(error as? ExpressionError, ExpressionError(.reference, at: 0, "no answer at missing"))
        }
    }

    // MARK: Dates

    func testTodayAndNowComeFromTheInjectedClock() {
        // Spec: today() is "today's local date"; now() is "the current date and time including
        // timezone offset (i.e. not normalized to UTC)".
        XCTAssertEqual(string("today()"), "2026-11-26")
        XCTAssertEqual(string("today()", zone: Self.utc), "2026-11-25")
        XCTAssertEqual(string("now()"), "2026-11-26T00:30:00.000+01:00")
        XCTAssertEqual(string("now()", zone: Self.utc), "2026-11-25T23:30:00.000+00:00")
        // The same clock as the question types' values.
        let temporal = TemporalContext(now: Self.clock, timeZone: Self.madrid)
        let context = ExpressionContext(temporal: temporal) { _ throws(ExpressionError) in .string("") }
        XCTAssertEqual(try Expression("today()").evaluateString(in: context), LocalDate.today(temporal).isoString)
        XCTAssertEqual(string("now()", zone: TimeZone(identifier: "America/Mexico_City") ?? Self.utc), "2026-11-25T17:30:00.000-06:00")
    }

    func testDatesAsNumbers() {
        // Spec: number() "will convert date- and dateTime-formatted strings to a number of days
        // since January 1, 1970 UTC". 2026-11-26 is 20,783 days after 1970-01-01.
        XCTAssertEqual(value("number('1970-01-02')"), .number(1))
        XCTAssertEqual(value("number('2026-11-26')"), .number(20_783))
        XCTAssertEqual(value("number(date('2026-11-26'))"), .number(20_783))
        XCTAssertEqual(value("number('1969-12-31')"), .number(-1))
        XCTAssertEqual(value("'2026-11-26' - '2026-01-01'"), .number(329))
        XCTAssertEqual(value("today() - date('2026-11-20')"), .number(6))
        // Spec's constraint example ". >= today()".
        XCTAssertEqual(value(". >= today()", current: .string("2026-11-28")), .boolean(true))
        XCTAssertEqual(value(". >= today()", current: .string("2026-11-25")), .boolean(false))
        XCTAssertEqual(value(". >= today()", current: .string("")), .boolean(false), "an unanswered date is NaN")
        // Impossible dates are not dates.
        guard case .number(let impossible)? = value("number('2026-02-30')") else { return XCTFail("a number") }
        XCTAssertTrue(impossible.isNaN)
        XCTAssertEqual(value("number('2028-02-29')"), .number(21_243))
    }

    func testDateFunction() {
        // Spec: "date(* value) — Converts to a string in the date format".
        XCTAssertEqual(value("date('2026-11-26')"), .string("2026-11-26"))
        XCTAssertEqual(value("date(20783)"), .string("2026-11-26"))
        XCTAssertEqual(value("date(today() + 7)"), .string("2026-12-03"))
        XCTAssertEqual(value("date('2026-11-26T23:30:00-06:00')"), .string("2026-11-26"), "the date in its own offset")
        XCTAssertEqual(value("date(${unanswered})"), .string(""))
        XCTAssertThrowsError(try Expression("date('next tuesday')").evaluate(in: ExpressionContext(answers: [:], now: Self.clock, timeZone: Self.utc))) { error in
            XCTAssertEqual((error as? ExpressionError)?.message, "date() cannot read 'next tuesday' as a date")
            XCTAssertEqual((error as? ExpressionError)?.position, 0)
        }
    }

    func testDecimalDateTime() {
        // Spec: "decimal-date-time(dateTime value) — Converts dateTime value to the number of
        // days since January 1, 1970 UTC."
        XCTAssertEqual(value("decimal-date-time('1970-01-01T12:00:00Z')"), .number(0.5))
        XCTAssertEqual(value("decimal-date-time('1970-01-02T06:00:00.000+06:00')"), .number(1))
        XCTAssertEqual(value("decimal-date-time('1970-01-01T18:00')", zone: Self.utc), .number(0.75))
        XCTAssertEqual(value("decimal-date-time(now())"), .number(1_795_649_400.0 / 86_400))
    }

    func testFormatDate() {
        // Spec identifiers: %Y 4-digit year, %y 2-digit year, %m 0-padded month, %n numeric
        // month, %b short text month, %d 0-padded day, %e day, %a short text day; format-date-time
        // adds %H 0-padded hour, %h hour, %M 0-padded minute, %S 0-padded second, %3 milliseconds.
        // 2026-11-26 is a Thursday; 2026-03-05 a Thursday too.
        XCTAssertEqual(string("format-date('2026-11-26', '%Y/%m/%d')"), "2026/11/26")
        XCTAssertEqual(string("format-date('2026-03-05', '%e/%n/%y %a %b')"), "5/3/26 Thu Mar")
        XCTAssertEqual(string("format-date(date('2026-11-26') + 5, '%a %e %b %Y')"), "Tue 1 Dec 2026")
        XCTAssertEqual(string("format-date-time('2026-11-26T07:05:09.042+01:00', '%H:%M:%S.%3 %h')"), "07:05:09.042 7")
        XCTAssertEqual(string("format-date(now(), '%Y-%m-%d %H:%M')"), "2026-11-26 00:30")
        XCTAssertEqual(string("format-date('2026-11-26', '100%% %q')"), "100% %q")
        XCTAssertEqual(string("format-date('', '%Y')"), "", "no date, no text")
        XCTAssertEqual(string("format-date(-719528, '%Y-%m-%d %a')"), "0000-01-01 Sat", "the proleptic Gregorian calendar")
        XCTAssertEqual(string("format-date(date('0099-12-31'), '%y')"), "99")
        XCTAssertEqual(string("format-date('soon', '%Y')"), "")
    }

    // MARK: XPath 1.0 conversions

    func testStringOfNumbers() {
        XCTAssertEqual(string("string(1.0)"), "1")
        XCTAssertEqual(string("string(-0)"), "0")
        XCTAssertEqual(string("string(0.5)"), "0.5")
        XCTAssertEqual(string("string(-1.25)"), "-1.25")
        XCTAssertEqual(string("string(number(''))"), "NaN")
        XCTAssertEqual(string("string(1 div 0)"), "Infinity")
        XCTAssertEqual(string("string(-1 div 0)"), "-Infinity")
        XCTAssertEqual(string("string(1000000 * 1000000 * 1000000 * 1000)"), "1000000000000000000000", "no exponent")
        XCTAssertEqual(string("string(0.0000001)"), "0.0000001")
        XCTAssertEqual(string("string(123456789012)"), "123456789012")
        XCTAssertEqual(ExpressionValue.format(1.5e-10), "0.00000000015")
        XCTAssertEqual(ExpressionValue.format(-2.5e20), "-250000000000000000000")
        XCTAssertEqual(string("string(true())"), "true")
        XCTAssertEqual(string("string(2 > 3)"), "false")
    }

    func testNumberOfStrings() {
        XCTAssertEqual(value("number(' 12 ')"), .number(12))
        XCTAssertEqual(value("number('-.5')"), .number(-0.5))
        XCTAssertEqual(value("number('5.')"), .number(5))
        XCTAssertEqual(value("number(true())"), .number(1))
        for text in ["''", "'abc'", "'+1'", "'1e3'", "'1,5'", "'- 1'", "'.'", "'-'"] {
            guard case .number(let result)? = value("number(\(text))") else { return XCTFail(text) }
            XCTAssertTrue(result.isNaN, "number(\(text)) should be NaN, is \(result)")
        }
    }

    func testBooleansAndComparisons() {
        XCTAssertEqual(value("boolean('false')"), .boolean(true), "a non-empty string is true")
        XCTAssertEqual(value("boolean('')"), .boolean(false))
        XCTAssertEqual(value("boolean(0 div 0)"), .boolean(false))
        XCTAssertEqual(value("boolean(-0.1)"), .boolean(true))
        // Equality: boolean first, then number, then string.
        XCTAssertEqual(value("true() = 'a'"), .boolean(true))
        XCTAssertEqual(value("false() = ''"), .boolean(true))
        XCTAssertEqual(value("true() = 2"), .boolean(true))
        XCTAssertEqual(value("'1' = 1"), .boolean(true))
        XCTAssertEqual(value("'1.0' = 1"), .boolean(true))
        XCTAssertEqual(value("'1.0' = '1'"), .boolean(false), "two strings compare as strings")
        XCTAssertEqual(value("'' = 0"), .boolean(false), "NaN equals nothing")
        XCTAssertEqual(value("number('') != number('')"), .boolean(true))
        // Relational operators always compare numbers.
        XCTAssertEqual(value("'10' > '9'"), .boolean(true))
        XCTAssertEqual(value("'abc' < 1"), .boolean(false))
        XCTAssertEqual(value("'abc' >= 1"), .boolean(false))
        XCTAssertEqual(value("true() > false()"), .boolean(true))
        // An empty answer is '' and a number question's answer is its text.
        XCTAssertEqual(value("${n} = ''"), .boolean(true))
        XCTAssertEqual(value("${n} + 1 > 0", ["n": .string("")]), .boolean(false))
        XCTAssertEqual(value("${n} > 5", ["n": .string("12")]), .boolean(true))
    }

    func testArithmetic() {
        XCTAssertEqual(value("7 div 2"), .number(3.5))
        XCTAssertEqual(value("5 mod 3"), .number(2))
        XCTAssertEqual(value("-5 mod 3"), .number(-2), "the sign of the dividend")
        XCTAssertEqual(value("5 mod -3"), .number(2))
        XCTAssertEqual(value("5.5 mod 2"), .number(1.5))
        XCTAssertEqual(value("1 div 0"), .number(.infinity))
        XCTAssertEqual(value("-1 div 0"), .number(-.infinity))
        guard case .number(let nan)? = value("0 div 0"), case .number(let modZero)? = value("5 mod 0") else { return XCTFail("numbers") }
        XCTAssertTrue(nan.isNaN)
        XCTAssertTrue(modZero.isNaN)
    }

    func testPrecedenceAndAssociativity() {
        // or < and < equality < relational < additive < multiplicative < unary; left to right.
        XCTAssertEqual(value("1 + 2 * 3"), .number(7))
        XCTAssertEqual(value("10 - 4 - 3"), .number(3))
        XCTAssertEqual(value("64 div 4 div 2"), .number(8))
        XCTAssertEqual(value("17 mod 5 mod 3"), .number(2))
        XCTAssertEqual(value("-2 * 3"), .number(-6))
        XCTAssertEqual(value("- - 2"), .number(2))
        XCTAssertEqual(value("2 - -2"), .number(4))
        XCTAssertEqual(value("1 < 2 = 2 > 1"), .boolean(true), "relational binds tighter than equality")
        XCTAssertEqual(value("3 > 2 > 1"), .boolean(false), "(3 > 2) > 1 is true() > 1, 1 > 1")
        XCTAssertEqual(value("1 = 1 = 1"), .boolean(true))
        XCTAssertEqual(value("true() or false() and false()"), .boolean(true), "and binds tighter than or")
        XCTAssertEqual(value("(true() or false()) and false()"), .boolean(false))
        XCTAssertEqual(value("1 + 1 = 2 and 2 * 2 = 4"), .boolean(true))
        XCTAssertEqual(value("${a} > 1\r\nand\t${a} < 5\n", ["a": .string("3")]), .boolean(true), "line breaks from a spreadsheet cell")
        XCTAssertEqual(try Expression("1 + 2 * 3").root,
                       .binary(.plus, .number(1), .binary(.times, .number(2), .number(3))))
        XCTAssertEqual(try Expression("1 - 2 - 3").root,
                       .binary(.minus, .binary(.minus, .number(1), .number(2)), .number(3)))
    }

    // MARK: Dependencies

    func testDependencyExtraction() throws {
        let expression = try Expression("if(${a} > 0, ${b} + ${a}, sum(${pumps_amps})) and selected(., 'x')")
        XCTAssertEqual(expression.references, ["a", "b", "pumps_amps"])
        XCTAssertTrue(expression.readsCurrent)
        XCTAssertFalse(expression.readsClock)
        XCTAssertEqual(expression.referencePositions.map(\.position), [3, 13, 20, 30])
        let clock = try Expression("today() - ${last_service} > 365")
        XCTAssertEqual(clock.references, ["last_service"])
        XCTAssertFalse(clock.readsCurrent)
        XCTAssertTrue(clock.readsClock)
        XCTAssertEqual(try Expression("string-length()").readsCurrent, true)
        XCTAssertEqual(try Expression("1 + 2").references, [])
        let unknown = expression.unknownReferences { $0 != "b" }
        XCTAssertEqual(unknown, [ExpressionError(.reference, at: 13, "there is no question named 'b'")])
        XCTAssertEqual(unknown.first?.description, "at position 13 (counting from 0): there is no question named 'b'")
    }
}
