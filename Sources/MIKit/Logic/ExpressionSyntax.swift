import Foundation

// The expression language of XLSForm / ODK XForms (an XPath 1.0 subset): tokens, the syntax tree,
// the limits, and the errors. The parser is in ExpressionParser.swift, the evaluator in
// ExpressionEvaluator.swift. Positions count Characters from 0. docs/expressions.md describes it.

/// Limits that keep a hostile or mistaken expression from crashing or hanging anything.
public struct ExpressionLimits: Sendable, Equatable {
    /// Characters in the expression's text.
    public var maxLength: Int
    /// Height of the syntax tree: parentheses, function calls, unary minus and chained operators
    /// all count. Checked before the parser recurses, so `((((…` of any length is refused cleanly.
    public var maxDepth: Int
    /// Evaluation steps (one per node evaluated and per list item a function walks).
    public var maxWork: Int
    /// Characters in any string an evaluation builds.
    public var maxStringLength: Int
    /// Characters in a `regex()` pattern.
    public var maxRegexLength: Int
    /// Characters of the text a `regex()` is matched against.
    public var maxRegexSubjectLength: Int

    public init(maxLength: Int = 10_000, maxDepth: Int = 200, maxWork: Int = 1_000_000,
                maxStringLength: Int = 1_000_000, maxRegexLength: Int = 500, maxRegexSubjectLength: Int = 10_000) {
        self.maxLength = maxLength
        self.maxDepth = maxDepth
        self.maxWork = maxWork
        self.maxStringLength = maxStringLength
        self.maxRegexLength = maxRegexLength
        self.maxRegexSubjectLength = maxRegexSubjectLength
    }

    public static let standard = ExpressionLimits()
}

/// Why an expression was refused (when parsed) or failed (when evaluated).
public struct ExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case syntax, unknownFunction, arity, tooLong, tooDeep, tooMuchWork, regex, reference, evaluation
    }

    public let kind: Kind
    /// 0-based Character offset into the expression's text, when the problem has a place.
    public let position: Int?
    /// What went wrong, without the position (e.g. "expected ')' but found end of expression").
    public let message: String

    public init(_ kind: Kind, at position: Int?, _ message: String) {
        self.kind = kind
        self.position = position
        self.message = message
    }

    /// "at position 4 (counting from 0): expected an operand but found ')'".
    public var description: String {
        guard let position else { return message }
        return "at position \(position) (counting from 0): \(message)"
    }
}

public enum BinaryOperator: String, Sendable, Equatable, CaseIterable {
    case or, and
    case equal = "=", notEqual = "!="
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case plus = "+", minus = "-"
    case times = "*", div, mod
}

/// The syntax tree of a parsed expression.
public indirect enum ExpressionNode: Sendable, Equatable {
    case number(Double)
    case string(String)
    /// `${name}`; `position` is where the `$` stands.
    case reference(String, position: Int)
    /// `.`, the answer of the question the expression belongs to.
    case current
    case negate(ExpressionNode)
    case binary(BinaryOperator, ExpressionNode, ExpressionNode)
    case call(ExpressionFunction, [ExpressionNode], position: Int)
}

enum TokenKind: Equatable {
    case number(Double)
    case string(String)
    case reference(String)
    case name(String)
    case dot, leftParen, rightParen, comma
    /// `..`: only as `position(..)`, the number of the repeat instance the expression stands in.
    case parent
    case plus, minus, star
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case end

    var shown: String {
        switch self {
        case .number(let value): return "the number \(ExpressionValue.format(value))"
        case .string(let text): return "the string '\(text.count > 20 ? String(text.prefix(20)) + "…" : text)'"
        case .reference(let name): return "${\(name)}"
        case .name(let name): return "'\(name)'"
        case .dot: return "'.'"
        case .parent: return "'..'"
        case .leftParen: return "'('"
        case .rightParen: return "')'"
        case .comma: return "','"
        case .plus: return "'+'"
        case .minus: return "'-'"
        case .star: return "'*'"
        case .equal: return "'='"
        case .notEqual: return "'!='"
        case .less: return "'<'"
        case .lessOrEqual: return "'<='"
        case .greater: return "'>'"
        case .greaterOrEqual: return "'>='"
        case .end: return "end of expression"
        }
    }
}

struct Token: Equatable {
    let kind: TokenKind
    let position: Int
}

/// Splits an expression's text into tokens. Names may contain letters, digits, `_`, `-` and `.`
/// (as XML names do, so `count-selected` is one name); `div`, `mod`, `and`, `or` are told apart
/// from function names by the parser, from where they stand.
enum ExpressionTokenizer {
    static func tokens(_ characters: [Character]) throws(ExpressionError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        func isNameStart(_ character: Character) -> Bool { character.isLetter || character == "_" }
        func isNameCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isASCIIDigit || character == "_" || character == "-" || character == "."
        }
        while index < characters.count {
            let character = characters[index]
            let start = index
            switch character {
            case " ", "\t", "\n", "\r", "\r\n":
                index += 1
                continue
            case "(": tokens.append(Token(kind: .leftParen, position: start)); index += 1
            case ")": tokens.append(Token(kind: .rightParen, position: start)); index += 1
            case ",": tokens.append(Token(kind: .comma, position: start)); index += 1
            case "+": tokens.append(Token(kind: .plus, position: start)); index += 1
            case "-": tokens.append(Token(kind: .minus, position: start)); index += 1
            case "*": tokens.append(Token(kind: .star, position: start)); index += 1
            case "=": tokens.append(Token(kind: .equal, position: start)); index += 1
            case "!":
                guard index + 1 < characters.count, characters[index + 1] == "=" else {
                    throw ExpressionError(.syntax, at: start, "'!' must be followed by '=' ('!=' means not equal; use not(…) to negate)")
                }
                tokens.append(Token(kind: .notEqual, position: start)); index += 2
            case "<", ">":
                let orEqual = index + 1 < characters.count && characters[index + 1] == "="
                let kind: TokenKind = character == "<" ? (orEqual ? .lessOrEqual : .less) : (orEqual ? .greaterOrEqual : .greater)
                tokens.append(Token(kind: kind, position: start)); index += orEqual ? 2 : 1
            case "'", "\"":
                guard let close = characters[(index + 1)...].firstIndex(of: character) else {
                    throw ExpressionError(.syntax, at: start, "the string starting here has no closing \(character)")
                }
                tokens.append(Token(kind: .string(String(characters[(index + 1)..<close])), position: start))
                index = close + 1
            case "$":
                guard index + 1 < characters.count, characters[index + 1] == "{" else {
                    throw ExpressionError(.syntax, at: start, "expected '{' after '$' (a question is referred to as ${name})")
                }
                var end = index + 2
                while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
                let name = String(characters[(index + 2)..<end])
                guard end < characters.count, characters[end] == "}" else {
                    let found = end < characters.count ? "'\(characters[end])'" : "end of expression"
                    throw ExpressionError(.syntax, at: end, "expected '}' to close ${\(name) but found \(found)")
                }
                guard let first = name.first else {
                    throw ExpressionError(.syntax, at: start + 2, "expected a question name inside ${}")
                }
                guard isNameStart(first) else {
                    throw ExpressionError(.syntax, at: start + 2, "a question name must start with a letter or '_', not '\(first)'")
                }
                tokens.append(Token(kind: .reference(name), position: start))
                index = end + 1
            case ".":
                if index + 1 < characters.count, characters[index + 1].isASCIIDigit {
                    index = try number(characters, from: index, into: &tokens)
                } else if index + 1 < characters.count, characters[index + 1] == "." {
                    var next = index + 2
                    while next < characters.count, characters[next] == " " { next += 1 }
                    guard next < characters.count, characters[next] == ")" else {
                        throw ExpressionError(.syntax, at: start, "'..' (the parent) is only supported as position(..); refer to a question as ${name}")
                    }
                    tokens.append(Token(kind: .parent, position: start)); index += 2
                } else {
                    tokens.append(Token(kind: .dot, position: start)); index += 1
                }
            case "/":
                throw ExpressionError(.syntax, at: start, "paths with '/' are not supported (use 'div' to divide, ${name} to refer to a question)")
            default:
                if character.isASCIIDigit {
                    index = try number(characters, from: index, into: &tokens)
                } else if isNameStart(character) {
                    var end = index + 1
                    while end < characters.count, isNameCharacter(characters[end]) || characters[end] == ":" { end += 1 }
                    tokens.append(Token(kind: .name(String(characters[index..<end])), position: start))
                    index = end
                } else {
                    let shown = character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control || $0.value < 0x20 })
                        ? "U+" + String(character.unicodeScalars.first?.value ?? 0, radix: 16, uppercase: true)
                        : "'\(character)'"
                    throw ExpressionError(.syntax, at: start, "unexpected character \(shown)")
                }
            }
        }
        tokens.append(Token(kind: .end, position: characters.count))
        return tokens
    }

    /// XPath's Number: Digits ('.' Digits?)? | '.' Digits — no sign, no exponent.
    private static func number(_ characters: [Character], from start: Int, into tokens: inout [Token]) throws(ExpressionError) -> Int {
        var end = start
        while end < characters.count, characters[end].isASCIIDigit { end += 1 }
        if end < characters.count, characters[end] == "." {
            end += 1
            while end < characters.count, characters[end].isASCIIDigit { end += 1 }
        }
        if end < characters.count, characters[end].isLetter || characters[end] == "_" {
            throw ExpressionError(.syntax, at: end, "a number cannot be followed directly by '\(characters[end])'")
        }
        let text = String(characters[start..<end])
        guard let value = Double(text.hasSuffix(".") ? text + "0" : (text.hasPrefix(".") ? "0" + text : text)) else {
            throw ExpressionError(.syntax, at: start, "'\(text)' is not a number")
        }
        tokens.append(Token(kind: .number(value), position: start))
        return end
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
