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
    /// False when the form itself refuses an answer (days over 7).
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

/// Hand-worked IPAQ cases. MET-minutes/week = MET × minutes a day × days (walking 3.3,
/// moderate 4.0, vigorous 8.0).
public enum IPAQCases {
    public static let all: [IPAQCase] = [
        // V 3 × 30 = 8 × 90 = 720; M 2 × 30 = 4 × 60 = 240; W 5 × 30 = 3.3 × 150 = 495;
        // total 1455 < 1500, so not HIGH; V days 3 of ≥ 20 min → MODERATE.
        IPAQCase(name: "vigorous three days, total under 1500", answers: [
            "firstQuestionVigorous": 3, "secondQuestionVigorous": 30, "thirdQuestionModerate": 2,
            "fourthQuestionModerate": 30, "fifthQuestionWalk": 5, "sixthQuestionWalk": 30,
            "seventhQuestionSedentary": 300,
        ], expected: [
            "ipaq.walkingMET": .number(495), "ipaq.moderateMET": .number(240), "ipaq.vigorousMET": .number(720),
            "ipaq.totalMET": .number(1455), "ipaq.category": .text("moderate"), "ipaq.sittingMinutes": .number(300),
        ]),
        // V 7 × 60 = 8 × 420 = 3360; no moderate or walking; V days ≥ 3 and total ≥ 1500 → HIGH.
        // Sitting not answered: no sitting key.
        IPAQCase(name: "vigorous every day", answers: [
            "firstQuestionVigorous": 7, "secondQuestionVigorous": 60, "thirdQuestionModerate": 0,
            "fourthQuestionModerate": 0, "fifthQuestionWalk": 0, "sixthQuestionWalk": 0,
        ], expected: [
            "ipaq.walkingMET": .number(0), "ipaq.moderateMET": .number(0), "ipaq.vigorousMET": .number(3360),
            "ipaq.totalMET": .number(3360), "ipaq.category": .text("high"),
        ]),
    ]
}
