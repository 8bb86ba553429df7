import Foundation

/// The MMSE items a program can check against the form's date and known answers; the rest are
/// left to an examiner.
enum MMSEScorer {
    static let requirements: [Scoring.Requirement] = [
        .init(question: "timeQuestionWeekDay", accepts: [.shortAnswer]),
        .init(question: "timeQuestionYear", accepts: [.wholeNumber]),
        .init(question: "timeQuestionMonth", accepts: [.shortAnswer, .wholeNumber]),
        .init(question: "timeQuestionDay", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionOne", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionTwo", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionThree", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionFour", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionFive", accepts: [.wholeNumber]),
        .init(question: "watchImageQuestion", accepts: [.shortAnswer]),
        .init(question: "pencilImageQuestion", accepts: [.shortAnswer]),
    ]

    static let keys = ["mmse.automatic", "mmse.automaticMax"]

    static func score(_ form: Form) -> ScoreSheet {
        ScoreSheet(scoring: .mmse, values: [], note: "MMSE scoring is not yet supported")
    }
}
