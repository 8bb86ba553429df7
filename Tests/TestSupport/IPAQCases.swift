import Foundation
import MIKit

/// One IPAQ short-form case worked out by hand from the IPAQ group's "Guidelines for Data
/// Processing and Analysis" (November 2005).
public struct IPAQCase: Sendable {
    public var name: String
    /// By question id; a missing key is a question left open, `nil` a comment-only answer.
    public var answers: [String: Int?]
    /// Every key the scorer must produce for these answers, and nothing else.
    public var expected: [String: ScoreValue]
    /// False when the form itself refuses an answer (days over 7): the scorer still excludes
    /// such a case when a form.json written elsewhere holds it.
    public var formAccepts: Bool

    public init(name: String, answers: [String: Int?], expected: [String: ScoreValue], formAccepts: Bool = true) {
        self.name = name
        self.answers = answers
        self.expected = expected
        self.formAccepts = formAccepts
    }

    /// `form` with this case's answers: numbers, and a comment ("No sé") where the answer is nil.
    public func applied(to form: Form) -> Form {
        var form = form
        for (question, value) in answers {
            form.answers[question] = value.map { Answer(value: .number(Double($0))) } ?? Answer(comment: "No sé")
        }
        return form
    }
}

/// The hand-worked table every IPAQ test runs: the unit tests, `mi` end to end and the
/// server's recomputation.
///
/// MET-minutes/week = MET × minutes a day × days, with MET walking 3.3, moderate 4.0,
/// vigorous 8.0. In the comments V, M, W are vigorous, moderate and walking as days × minutes.
/// Categories (guideline 5.2): HIGH = V days ≥ 3 and total ≥ 1500, or all days ≥ 7 and total
/// ≥ 3000; MODERATE = V days ≥ 3 of ≥ 20 min, or M and W days of ≥ 30 min summing ≥ 5, or all
/// days ≥ 5 and total ≥ 600; else LOW.
public enum IPAQCases {
    public static let vigorousDays = "firstQuestionVigorous"
    public static let vigorousMinutes = "secondQuestionVigorous"
    public static let moderateDays = "thirdQuestionModerate"
    public static let moderateMinutes = "fourthQuestionModerate"
    public static let walkingDays = "fifthQuestionWalk"
    public static let walkingMinutes = "sixthQuestionWalk"
    public static let sittingMinutes = "seventhQuestionSedentary"

    /// Answers to the six activity questions, and the sitting one when given.
    static func answers(vigorous: (Int, Int), moderate: (Int, Int), walking: (Int, Int), sitting: Int? = nil) -> [String: Int?] {
        var answers: [String: Int?] = [
            vigorousDays: vigorous.0, vigorousMinutes: vigorous.1,
            moderateDays: moderate.0, moderateMinutes: moderate.1,
            walkingDays: walking.0, walkingMinutes: walking.1,
        ]
        if let sitting { answers[sittingMinutes] = .some(sitting) }
        return answers
    }

    /// The keys of a case that is not excluded.
    static func scored(walking: Double, moderate: Double, vigorous: Double, total: Double, category: String,
                       sitting: Double? = nil) -> [String: ScoreValue] {
        var expected: [String: ScoreValue] = [
            "ipaq.walkingMET": .number(walking), "ipaq.moderateMET": .number(moderate),
            "ipaq.vigorousMET": .number(vigorous), "ipaq.totalMET": .number(total), "ipaq.category": .text(category),
        ]
        if let sitting { expected["ipaq.sittingMinutes"] = .number(sitting) }
        return expected
    }

    /// The keys of an excluded case: no MET values.
    static func excluded(_ reason: String, sitting: Double? = nil) -> [String: ScoreValue] {
        var expected: [String: ScoreValue] = ["ipaq.category": .text("excluded"), "ipaq.excludedBecause": .text(reason)]
        if let sitting { expected["ipaq.sittingMinutes"] = .number(sitting) }
        return expected
    }

    public static let all: [IPAQCase] = [
        // All 0: every MET value 0, no criterion met.
        IPAQCase(name: "no activity is low",
                 answers: answers(vigorous: (0, 0), moderate: (0, 0), walking: (0, 0), sitting: 600),
                 expected: scored(walking: 0, moderate: 0, vigorous: 0, total: 0, category: "low", sitting: 600)),

        // M 1 × 18 = 4.0 × 18 × 1 = 72; W 4 × 40 = 3.3 × 40 × 4 = 528; total 600 over 5 days.
        // M and W days of ≥ 30 min: 4 (M has 18 min) < 5, so only "5 days and ≥ 600" applies.
        IPAQCase(name: "exactly 600 over 5 days is moderate",
                 answers: answers(vigorous: (0, 0), moderate: (1, 18), walking: (4, 40), sitting: 300),
                 expected: scored(walking: 528, moderate: 72, vigorous: 0, total: 600, category: "moderate", sitting: 300)),

        // M 2 × 49 = 4.0 × 98 = 392; W 3 × 21 = 3.3 × 63 = 207.9; total 599.9 over 5 days: low.
        // M and W days of ≥ 30 min: 2 (W has 21 min).
        IPAQCase(name: "599.9 over 5 days is low",
                 answers: answers(vigorous: (0, 0), moderate: (2, 49), walking: (3, 21)),
                 expected: scored(walking: 207.9, moderate: 392, vigorous: 0, total: 599.9, category: "low")),

        // V 3 × 10 = 8.0 × 30 = 240; M 1 × 51 = 204; W 2 × 160 = 3.3 × 320 = 1056; total 1500
        // with 3 vigorous days: high.
        IPAQCase(name: "exactly 1500 with 3 vigorous days is high",
                 answers: answers(vigorous: (3, 10), moderate: (1, 51), walking: (2, 160)),
                 expected: scored(walking: 1056, moderate: 204, vigorous: 240, total: 1500, category: "high")),

        // V 3 × 10 = 240; M 2 × 115 = 4.0 × 230 = 920; W 1 × 103 = 339.9; total 1499.9: not high.
        // Vigorous only 10 min a day (< 20); M/W days of ≥ 30 min: 3; but 6 days and ≥ 600.
        IPAQCase(name: "1499.9 with 3 vigorous days is moderate",
                 answers: answers(vigorous: (3, 10), moderate: (2, 115), walking: (1, 103)),
                 expected: scored(walking: 339.9, moderate: 920, vigorous: 240, total: 1499.9, category: "moderate")),

        // M 1 × 57 = 228; W 6 × 140 = 3.3 × 840 = 2772; total 3000 over 7 days: high.
        IPAQCase(name: "exactly 3000 over 7 days is high",
                 answers: answers(vigorous: (0, 0), moderate: (1, 57), walking: (6, 140)),
                 expected: scored(walking: 2772, moderate: 228, vigorous: 0, total: 3000, category: "high")),

        // M 4 × 125 = 2000; W 3 × 101 = 3.3 × 303 = 999.9; total 2999.9 over 7 days: not high;
        // M and W days of ≥ 30 min: 7 ≥ 5, moderate.
        IPAQCase(name: "2999.9 over 7 days is moderate",
                 answers: answers(vigorous: (0, 0), moderate: (4, 125), walking: (3, 101)),
                 expected: scored(walking: 999.9, moderate: 2000, vigorous: 0, total: 2999.9, category: "moderate")),

        // 400 + 300 + 261 = 961 minutes a day > 960: excluded before any truncation.
        IPAQCase(name: "961 minutes a day is excluded",
                 answers: answers(vigorous: (1, 400), moderate: (1, 300), walking: (1, 261), sitting: 480),
                 expected: excluded("more than 960 minutes of activity a day: secondQuestionVigorous + "
                                    + "fourthQuestionModerate + sixthQuestionWalk = 961", sitting: 480)),

        // 400 + 300 + 260 = 960: kept; each truncated to 180. V 1 × 180 = 1440; M 1 × 180 = 720;
        // W 1 × 180 = 594; total 2754 but 3 days in all and 1 vigorous day: low.
        IPAQCase(name: "exactly 960 minutes a day is kept and truncated",
                 answers: answers(vigorous: (1, 400), moderate: (1, 300), walking: (1, 260)),
                 expected: scored(walking: 594, moderate: 720, vigorous: 1440, total: 2754, category: "low")),

        // W 7 × 9: under 10 minutes, so its time and days become 0. M 2 × 60 = 480; 2 days: low.
        // (Without the rule: 9 days and 480 + 207.9 = 687.9, moderate.)
        IPAQCase(name: "under 10 minutes counts as no activity",
                 answers: answers(vigorous: (0, 0), moderate: (2, 60), walking: (7, 9), sitting: 240),
                 expected: scored(walking: 0, moderate: 480, vigorous: 0, total: 480, category: "low", sitting: 240)),

        // W 5 × 10: exactly 10 minutes is kept, 3.3 × 50 = 165. V 2 × 30 = 480; total 645 over
        // 7 days: moderate. (Without the walking: 2 days, low.)
        IPAQCase(name: "exactly 10 minutes counts",
                 answers: answers(vigorous: (2, 30), moderate: (0, 0), walking: (5, 10)),
                 expected: scored(walking: 165, moderate: 0, vigorous: 480, total: 645, category: "moderate")),

        // M 1 × 260 is truncated to 180: 720 (not 1040). V 3 × 20 = 480; total 1200 < 1500: not
        // high (untruncated it would be 1520, high); 3 vigorous days of 20 min: moderate.
        IPAQCase(name: "truncation to 180 minutes turns high into moderate",
                 answers: answers(vigorous: (3, 20), moderate: (1, 260), walking: (0, 0)),
                 expected: scored(walking: 0, moderate: 720, vigorous: 480, total: 1200, category: "moderate")),

        // V 3 × 19 = 456: vigorous days of under 20 min, 3 days in all: low.
        IPAQCase(name: "3 vigorous days of 19 minutes is low",
                 answers: answers(vigorous: (3, 19), moderate: (0, 0), walking: (0, 0)),
                 expected: scored(walking: 0, moderate: 0, vigorous: 456, total: 456, category: "low")),

        // M 3 × 30 = 360; W 2 × 30 = 198; total 558 < 600, but M and W days of ≥ 30 min: 5.
        IPAQCase(name: "5 days of 30 minutes of moderate and walking is moderate",
                 answers: answers(vigorous: (0, 0), moderate: (3, 30), walking: (2, 30)),
                 expected: scored(walking: 198, moderate: 360, vigorous: 0, total: 558, category: "moderate")),

        // M 3 × 30 = 360; W 2 × 29 = 3.3 × 58 = 191.4; walking days of 29 min do not count: 3
        // days; total 551.4 < 600: low.
        IPAQCase(name: "walking of 29 minutes does not count toward 5 days of 30",
                 answers: answers(vigorous: (0, 0), moderate: (3, 30), walking: (2, 29)),
                 expected: scored(walking: 191.4, moderate: 360, vigorous: 0, total: 551.4, category: "low")),

        // A comment instead of the moderate days: the case is excluded; sitting still reported.
        IPAQCase(name: "a comment-only activity answer is excluded",
                 answers: answers(vigorous: (2, 30), moderate: (0, 0), walking: (5, 40), sitting: 420)
                     .merging([moderateDays: nil]) { $1 },
                 expected: excluded("a comment instead of an answer: thirdQuestionModerate", sitting: 420)),

        // The walking minutes left open: excluded.
        IPAQCase(name: "a missing activity answer is excluded",
                 answers: answers(vigorous: (2, 30), moderate: (0, 0), walking: (5, 40)).filter { $0.key != walkingMinutes },
                 expected: excluded("missing answer: sixthQuestionWalk")),

        // 8 vigorous days: outside 0–7, excluded (the form refuses it; a form.json from elsewhere
        // may hold it).
        IPAQCase(name: "8 days is excluded",
                 answers: answers(vigorous: (8, 30), moderate: (0, 0), walking: (0, 0)),
                 expected: excluded("days outside 0–7: firstQuestionVigorous is 8"), formAccepts: false),
    ]
}
