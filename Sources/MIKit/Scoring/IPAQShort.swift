import Foundation

/// The IPAQ short form's scoring (IPAQ Research Committee, "Guidelines for Data Processing and
/// Analysis of the International Physical Activity Questionnaire", November 2005).
enum IPAQShort {
    /// Vigorous days, vigorous minutes, moderate days, moderate minutes, walking days, walking
    /// minutes, sitting minutes: the seed's identifiers, in its order.
    static let questionIDs = ["firstQuestionVigorous", "secondQuestionVigorous", "thirdQuestionModerate",
                              "fourthQuestionModerate", "fifthQuestionWalk", "sixthQuestionWalk", "seventhQuestionSedentary"]

    static let keys = ["ipaq.walkingMET", "ipaq.moderateMET", "ipaq.vigorousMET", "ipaq.totalMET",
                       "ipaq.category", "ipaq.excludedBecause", "ipaq.sittingMinutes"]

    static func score(_ form: Form) -> ScoreSheet {
        ScoreSheet(scoring: .ipaqShort, values: [], note: "IPAQ scoring is not yet supported")
    }
}
