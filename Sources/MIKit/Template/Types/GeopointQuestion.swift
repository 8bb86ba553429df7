import Foundation

/// `geopoint`: a point on the globe — latitude and longitude in decimal degrees, and when known
/// the altitude and the horizontal accuracy in metres — stored as `Geopoint.json`. Typed as
/// `19.4326 -99.1332 [altitude] [accuracy]` (`Geopoint.parse`), or taken from gpsd by `mi fill`
/// and `mi answer --gps` (which hand the fix to this type as JSON, so one rule decides).
/// Optional `minAccuracy` (metres): a point whose accuracy is worse, or unknown, is refused.
public struct GeopointQuestion: QuestionType {
    /// The worst accuracy accepted, in metres; nil for any.
    public var minAccuracy: Double?

    public init(minAccuracy: Double? = nil) {
        self.minAccuracy = minAccuracy
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("geopoint")
    public static let displayName = "Location"
    public static let keys: [TemplateKeys.Key] = [.minAccuracy]
    public static let editorFields = [EditorField(.minAccuracy, .number, "Accuracy needed (metres, at most)")]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        guard let value = object[validator.keys[.minAccuracy]], value != .null else { return Self() }
        guard let metres = value.numberValue else {
            validator.problem(label, .minAccuracy, "expected a number of metres, found \(value.kindDescription)")
            return Self()
        }
        guard metres.isFinite, metres > 0 else {
            validator.problem(label, .minAccuracy, "\(formatNumber(metres)) is not a distance — give the worst accuracy accepted in metres, more than 0")
            return Self()
        }
        return Self(minAccuracy: metres)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        if let minAccuracy { object[keys[.minAccuracy]] = .number(minAccuracy) }
    }

    public var typeDescription: String {
        guard let minAccuracy else { return "location" }
        return "location accurate to \(formatNumber(minAccuracy)) m"
    }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        do {
            return try check(try Geopoint.parse(line))
        } catch {
            throw rules.refuse(error.rule)
        }
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        do {
            return try check(try Geopoint(json: json))
        } catch {
            throw rules.refuse(error.rule)
        }
    }

    private func check(_ point: Geopoint) throws(ValueError) -> AnswerValue {
        guard let minAccuracy else { return .location(point) }
        return .location(try point.checked(accuracyWithin: minAccuracy))
    }

    // MARK: mi fill

    public var promptLines: [String] {
        ["Enter or `gps` takes a fix from gpsd; or type latitude longitude [altitude] [accuracy], e.g. 19.4326 -99.1332 2240 5"]
    }
    public var answerHint: String { "Location " }
    public var completions: [String] { ["gps"] }
    public var positionFix: PositionFix? { PositionFix(accuracy: minAccuracy) }

    // MARK: Simulation, statistics, exports, search

    /// Out of a simulation (no form to place it by): near the seed's place.
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        simulatedValue(&generator, context: SimulationContext(temporal: .system()))
    }

    /// A point within 3 km of where the simulation is placed (`mi simulate --near`, else a place
    /// drawn from the seed), at least as accurate as `minAccuracy`.
    public func simulatedValue(_ generator: inout SeededGenerator, context: SimulationContext) -> JSONValue? {
        guard let base = context.near ?? Geopoint.simulationBase(seed: generator.seed) else { return nil }
        return Geopoint.simulated(near: base, accuracyAtMost: minAccuracy, &generator)?.json
    }

    public var tally: TallyShape { .locations }

    /// ODK Central's four columns: `Q-Latitude`, `Q-Longitude`, `Q-Altitude`, `Q-Accuracy`.
    public func csvHeader(question id: String) -> [String] { CSVLayout.pointHeader(prefix: id) }

    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] {
        switch value {
        case .location(let point)?: return CSVLayout.pointCells(point)
        case let other?: return [CSVLayout.text(other), "", "", ""]
        case nil: return CSVLayout.pointCells(nil)
        }
    }

    /// The point as typed (`19.4326 -99.1332 2240 5`): a search for the coordinates finds it.
    public func searchText(_ value: AnswerValue) -> String? {
        if case .location(let point) = value { return point.typedString }
        return value.display
    }

    // MARK: Presentation

    public func presentation(of value: AnswerValue?) -> AnswerShape? {
        switch value {
        case .location(let point)?: return .location(point)
        case let other?: return .text(other.display)
        case nil: return nil
        }
    }
}

extension TemplateKeys.Key {
    public static let geopoint = GeopointQuestion.typeKey
    public static let minAccuracy = TemplateKeys.Key("minAccuracy")
}

extension Question.Kind {
    public static func geopoint(minAccuracy: Double? = nil) -> Self { Self(GeopointQuestion(minAccuracy: minAccuracy)) }
}
