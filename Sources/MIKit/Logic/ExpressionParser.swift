import Foundation

/// A parsed expression, ready to evaluate many times. Parsing checks the syntax, the functions
/// (name and number of arguments), literal `regex()` patterns and the limits.
public struct Expression: Sendable, Equatable {
    public let text: String
    public let root: ExpressionNode
    public let limits: ExpressionLimits
    /// Every `${name}` the expression reads, in order of first appearance (no duplicates): the
    /// answers whose change makes this expression worth evaluating again.
    public let references: [String]
    /// Where each `${name}` stands (0-based), for messages such as "no question named x".
    public let referencePositions: [(name: String, position: Int)]
    /// Reads `.` (the question's own answer).
    public let readsCurrent: Bool
    /// Calls `today()` or `now()`, so its value changes with the clock.
    public let readsClock: Bool
    /// The literal `regex()` patterns, compiled once when the expression is read.
    let regexes: CompiledPatterns

    public init(_ text: String, limits: ExpressionLimits = .standard) throws(ExpressionError) {
        // Count cheaply first so a huge text is refused before it is split into Characters.
        if text.utf8.count > limits.maxLength, text.count > limits.maxLength {
            throw ExpressionError(.tooLong, at: limits.maxLength,
                                  "the expression has \(text.count) characters; at most \(limits.maxLength) are allowed")
        }
        let characters = Array(text)
        var parser = ExpressionParser(tokens: try ExpressionTokenizer.tokens(characters), limits: limits)
        let (root, _) = try parser.parseExpression()
        if parser.current.kind != .end {
            throw ExpressionError(.syntax, at: parser.current.position,
                                  "expected an operator or the end of the expression but found \(parser.current.kind.shown)")
        }
        self.text = text
        self.root = root
        self.limits = limits
        var positions: [(String, Int)] = []
        var seen = Set<String>()
        var names: [String] = []
        var readsCurrent = false
        var readsClock = false
        Expression.walk(root) { node in
            switch node {
            case .reference(let name, let position):
                positions.append((name, position))
                if seen.insert(name).inserted { names.append(name) }
            case .current:
                readsCurrent = true
            case .call(let function, let arguments, _):
                if function == .today || function == .now { readsClock = true }
                if (function == .string || function == .number || function == .stringLength || function == .normalizeSpace
                    || function == .position) && arguments.isEmpty {
                    readsCurrent = readsCurrent || function != .position
                }
            default: break
            }
        }
        self.references = names
        self.referencePositions = positions
        self.readsCurrent = readsCurrent
        self.readsClock = readsClock
        self.regexes = CompiledPatterns(parser.regexes)
    }

    /// The `${name}`s that `isKnown` does not accept, each with its position — for refusing a
    /// template whose expression names a question that does not exist.
    public func unknownReferences(_ isKnown: (String) -> Bool) -> [ExpressionError] {
        referencePositions.filter { !isKnown($0.name) }.map {
            ExpressionError(.reference, at: $0.position, "there is no question named '\($0.name)'")
        }
    }

    public static func == (lhs: Expression, rhs: Expression) -> Bool {
        lhs.text == rhs.text && lhs.limits == rhs.limits
    }

    /// Visits every node, depth first (the tree's height is bounded by `maxDepth`).
    static func walk(_ node: ExpressionNode, _ visit: (ExpressionNode) -> Void) {
        visit(node)
        switch node {
        case .negate(let operand): walk(operand, visit)
        case .binary(_, let left, let right): walk(left, visit); walk(right, visit)
        case .call(_, let arguments, _): for argument in arguments { walk(argument, visit) }
        case .number, .string, .reference, .current: break
        }
    }
}

/// Recursive descent with XPath 1.0's precedence, loosest first: or, and, = !=, < <= > >=, + -,
/// * div mod, unary minus. Binary operators are left-associative. Each parse function returns the
/// node and its height; the height is checked before any recursion, so the stack stays bounded.
struct ExpressionParser {
    let tokens: [Token]
    let limits: ExpressionLimits
    var index = 0
    var regexes: [String: NSRegularExpression] = [:]

    init(tokens: [Token], limits: ExpressionLimits) {
        self.tokens = tokens
        self.limits = limits
    }

    var current: Token { tokens[index] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func checkHeight(_ height: Int, at position: Int) throws(ExpressionError) {
        if height > limits.maxDepth {
            throw ExpressionError(.tooDeep, at: position,
                                  "the expression nests more than \(limits.maxDepth) levels deep (parentheses, function calls and chained operators)")
        }
    }

    private func operatorName(_ name: String) -> BinaryOperator? {
        switch name {
        case "or": return .or
        case "and": return .and
        case "div": return .div
        case "mod": return .mod
        default: return nil
        }
    }

    mutating func parseExpression(nesting: Int = 0) throws(ExpressionError) -> (ExpressionNode, Int) {
        try checkHeight(nesting + 1, at: current.position)
        return try parseLevel(0, nesting: nesting)
    }

    /// The binary levels, loosest (0) to tightest (5).
    private func binaryOperator(at level: Int) -> BinaryOperator? {
        let kind = current.kind
        switch level {
        case 0: if case .name("or") = kind { return .or }
        case 1: if case .name("and") = kind { return .and }
        case 2: if kind == .equal { return .equal }; if kind == .notEqual { return .notEqual }
        case 3:
            switch kind {
            case .less: return .less
            case .lessOrEqual: return .lessOrEqual
            case .greater: return .greater
            case .greaterOrEqual: return .greaterOrEqual
            default: return nil
            }
        case 4: if kind == .plus { return .plus }; if kind == .minus { return .minus }
        case 5:
            if kind == .star { return .times }
            if case .name("div") = kind { return .div }
            if case .name("mod") = kind { return .mod }
        default: return nil
        }
        return nil
    }

    private mutating func parseLevel(_ level: Int, nesting: Int) throws(ExpressionError) -> (ExpressionNode, Int) {
        if level > 5 { return try parseUnary(nesting: nesting) }
        var (left, height) = try parseLevel(level + 1, nesting: nesting)
        while let op = binaryOperator(at: level) {
            let position = current.position
            advance()
            let (right, rightHeight) = try parseLevel(level + 1, nesting: nesting)
            height = max(height, rightHeight) + 1
            try checkHeight(height + nesting, at: position)
            left = .binary(op, left, right)
        }
        return (left, height)
    }

    private mutating func parseUnary(nesting: Int) throws(ExpressionError) -> (ExpressionNode, Int) {
        if current.kind == .minus {
            let position = current.position
            try checkHeight(nesting + 2, at: position)
            advance()
            let (operand, height) = try parseUnary(nesting: nesting + 1)
            return (.negate(operand), height + 1)
        }
        return try parsePrimary(nesting: nesting)
    }

    private mutating func parsePrimary(nesting: Int) throws(ExpressionError) -> (ExpressionNode, Int) {
        let token = current
        switch token.kind {
        case .number(let value): advance(); return (.number(value), 1)
        case .string(let text): advance(); return (.string(text), 1)
        case .reference(let name): advance(); return (.reference(name, position: token.position), 1)
        case .dot: advance(); return (.current, 1)
        case .leftParen:
            try checkHeight(nesting + 2, at: token.position)
            advance()
            let (inner, height) = try parseExpression(nesting: nesting + 1)
            try expect(.rightParen, closing: "'(' at position \(token.position)")
            return (inner, height)
        case .name(let name):
            if let op = operatorName(name) {
                throw ExpressionError(.syntax, at: token.position, "expected an operand before '\(op.rawValue)' but found the operator '\(name)'")
            }
            advance()
            guard current.kind == .leftParen else {
                throw ExpressionError(.syntax, at: token.position, name == "true" || name == "false"
                    ? "write \(name)() with parentheses (a bare '\(name)' is a path, which is not supported)"
                    : "expected '(' after '\(name)': a bare name is not supported; refer to a question as ${\(name)} or quote a text as '\(name)'")
            }
            guard let function = ExpressionFunction(rawValue: name) else {
                throw ExpressionError(.unknownFunction, at: token.position, "unknown function '\(name)()'")
            }
            try checkHeight(nesting + 2, at: token.position)
            advance()
            var arguments: [ExpressionNode] = []
            var height = 1
            // ODK writes the instance's number as position(..): the same as position().
            if function == .position, current.kind == .parent { advance() }
            if current.kind != .rightParen {
                while true {
                    let (argument, argumentHeight) = try parseExpression(nesting: nesting + 1)
                    arguments.append(argument)
                    height = max(height, argumentHeight + 1)
                    if current.kind == .comma { advance(); continue }
                    break
                }
            }
            try expect(.rightParen, closing: "the arguments of \(name)() at position \(token.position)")
            let (minimum, maximum) = function.arity
            if arguments.count < minimum || (maximum.map { arguments.count > $0 } ?? false) {
                let wanted = maximum == minimum ? "\(minimum)" : (maximum.map { "\(minimum) to \($0)" } ?? "at least \(minimum)")
                throw ExpressionError(.arity, at: token.position,
                                      "\(name)() takes \(wanted) argument\(wanted == "1" || wanted.hasSuffix(" 1") ? "" : "s") but was given \(arguments.count)")
            }
            if function == .regex, arguments.count == 2, case .string(let pattern) = arguments[1] {
                do { regexes[pattern] = try ExpressionRegex.compile(pattern, limits: limits) } catch {
                    throw ExpressionError(.regex, at: token.position, error.message)
                }
            }
            return (.call(function, arguments, position: token.position), height)
        case .parent:
            throw ExpressionError(.syntax, at: token.position, "'..' (the parent) is only supported as position(..); refer to a question as ${name}")
        case .end:
            throw ExpressionError(.syntax, at: token.position, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found end of expression")
        default:
            throw ExpressionError(.syntax, at: token.position, "expected an operand (a number, a 'string', ${name}, '.', '(' or a function call) but found \(token.kind.shown)")
        }
    }

    private mutating func expect(_ kind: TokenKind, closing what: String) throws(ExpressionError) {
        guard current.kind == kind else {
            let hint = current.kind == .end ? "" : " (is an operator or a ',' missing?)"
            throw ExpressionError(.syntax, at: current.position, "expected \(kind.shown) to close \(what) but found \(current.kind.shown)\(hint)")
        }
        advance()
    }
}

/// Compiled patterns, never changed after the expression is read (NSRegularExpression is
/// immutable and safe to share between threads).
final class CompiledPatterns: @unchecked Sendable {
    let patterns: [String: NSRegularExpression]
    init(_ patterns: [String: NSRegularExpression]) { self.patterns = patterns }
}
