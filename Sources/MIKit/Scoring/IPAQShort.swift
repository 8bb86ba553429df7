import Foundation

/// The IPAQ short form's scoring (IPAQ Research Committee, "Guidelines for Data Processing and
/// Analysis of the International Physical Activity Questionnaire", November 2005).
///
/// Days and minutes are whole numbers, so MET-minutes are kept in tenths as integers (MET 3.3,
/// 4.0 and 8.0 are 33, 40 and 80 tenths): the thresholds 600, 1,500 and 3,000 are met exactly,
/// never missed by a floating-point 599.9999.
enum IPAQShort {
    /// Vigorous days, vigorous minutes, moderate days, moderate minutes, walking days, walking
    /// minutes, sitting minutes: the seed's identifiers, in its order.
    static let questionIDs = ["firstQuestionVigorous", "secondQuestionVigorous", "thirdQuestionModerate",
                              "fourthQuestionModerate", "fifthQuestionWalk", "sixthQuestionWalk", "seventhQuestionSedentary"]

    static let keys = ["ipaq.walkingMET", "ipaq.moderateMET", "ipaq.vigorousMET", "ipaq.totalMET",
                       "ipaq.category", "ipaq.excludedBecause", "ipaq.sittingMinutes"]

    /// One kind of activity: the questions asking its days and its minutes per day, and its MET
    /// value in tenths.
    struct Activity {
        var name: String
        var daysQuestion: String
        var minutesQuestion: String
        var metTenths: Int
    }

    static let vigorous = Activity(name: "vigorous", daysQuestion: questionIDs[0], minutesQuestion: questionIDs[1], metTenths: 80)
    static let moderate = Activity(name: "moderate", daysQuestion: questionIDs[2], minutesQuestion: questionIDs[3], metTenths: 40)
    static let walking = Activity(name: "walking", daysQuestion: questionIDs[4], minutesQuestion: questionIDs[5], metTenths: 33)
    static let sittingQuestion = questionIDs[6]

    /// An activity's days and minutes per day after the guideline's cleaning.
    struct Cleaned {
        var days: Int
        var minutes: Int
        var metTenths: Int
        /// MET-minutes per week, in tenths.
        var weeklyTenths: Int { metTenths * minutes * days }
    }

    static func score(_ form: Form) -> ScoreSheet {
        var values: [ScoreEntry] = []
        switch clean(form) {
        case .failure(let exclusion):
            values.append(ScoreEntry("ipaq.category", .text("excluded")))
            values.append(ScoreEntry("ipaq.excludedBecause", .text(exclusion.reason)))
        case .success(let activities):
            let (walk, moderate, vigorous) = activities
            let total = walk.weeklyTenths + moderate.weeklyTenths + vigorous.weeklyTenths
            values.append(ScoreEntry("ipaq.walkingMET", .number(Double(walk.weeklyTenths) / 10)))
            values.append(ScoreEntry("ipaq.moderateMET", .number(Double(moderate.weeklyTenths) / 10)))
            values.append(ScoreEntry("ipaq.vigorousMET", .number(Double(vigorous.weeklyTenths) / 10)))
            values.append(ScoreEntry("ipaq.totalMET", .number(Double(total) / 10)))
            values.append(ScoreEntry("ipaq.category", .text(category(walk: walk, moderate: moderate, vigorous: vigorous,
                                                                     totalTenths: total))))
        }
        if case .number(let sitting)? = form.answer(for: sittingQuestion).value {
            values.append(ScoreEntry("ipaq.sittingMinutes", .number(sitting)))
        }
        return ScoreSheet(scoring: .ipaqShort, values: values)
    }

    /// Why a case is left out of the analysis, in words naming the rule and the question.
    struct Exclusion: Error, Equatable { var reason: String }

    /// The guideline's cleaning, in its order: every activity answer present and in range
    /// (7.1, 7.2), the 960-minute outlier rule (7.2), then per activity the 10-minute minimum
    /// (7.3) and the 180-minute truncation (7.4).
    static func clean(_ form: Form) -> Result<(walk: Cleaned, moderate: Cleaned, vigorous: Cleaned), Exclusion> {
        let activities = [vigorous, moderate, walking]
        // Every answer first (7.1), then the ranges (7.2), so the reason names the first rule broken.
        var answers: [(days: Double, minutes: Double)] = []
        for activity in activities {
            switch (number(form, activity.daysQuestion), number(form, activity.minutesQuestion)) {
            case (.failure(let exclusion), _), (_, .failure(let exclusion)): return .failure(exclusion)
            case (.success(let days), .success(let minutes)): answers.append((days, minutes))
            }
        }
        var raw: [(days: Int, minutes: Double)] = []
        for (activity, answer) in zip(activities, answers) {
            guard (0...7).contains(answer.days), let days = Int(exactly: answer.days) else {
                return .failure(Exclusion(reason: "days outside 0–7: \(activity.daysQuestion) is \(formatNumber(answer.days))"))
            }
            guard answer.minutes >= 0 else {
                return .failure(Exclusion(reason: "negative minutes: \(activity.minutesQuestion) is \(formatNumber(answer.minutes))"))
            }
            raw.append((days, answer.minutes))
        }
        let rawTotal = raw.reduce(0) { $0 + $1.minutes }
        guard rawTotal <= 960 else {
            let names = activities.map(\.minutesQuestion).joined(separator: " + ")
            return .failure(Exclusion(reason: "more than 960 minutes of activity a day: \(names) = \(formatNumber(rawTotal))"))
        }
        // Each is at most 960 now, so whole minutes convert exactly.
        let cleaned = zip(activities, raw).map { activity, raw -> Cleaned in
            let minutes = Int(raw.minutes)
            if minutes < 10 { return Cleaned(days: 0, minutes: 0, metTenths: activity.metTenths) }
            return Cleaned(days: raw.days, minutes: min(minutes, 180), metTenths: activity.metTenths)
        }
        return .success((walk: cleaned[2], moderate: cleaned[1], vigorous: cleaned[0]))
    }

    /// A whole number answered to `question`, or why the case is excluded.
    private static func number(_ form: Form, _ question: String) -> Result<Double, Exclusion> {
        let answer = form.answer(for: question)
        switch answer.value {
        case .number(let value)?:
            guard value.isFinite, value.rounded() == value else {
                return .failure(Exclusion(reason: "not a whole number: \(question) is \(formatNumber(value))"))
            }
            return .success(value)
        case nil:
            if answer.isDone { return .failure(Exclusion(reason: "a comment instead of an answer: \(question)")) }
            return .failure(Exclusion(reason: "missing answer: \(question)"))
        case _?:
            return .failure(Exclusion(reason: "not a number: \(question)"))
        }
    }

    /// The guideline's categorical score (section 5.2) from cleaned days and minutes.
    static func category(walk: Cleaned, moderate: Cleaned, vigorous: Cleaned, totalTenths: Int) -> String {
        let allDays = walk.days + moderate.days + vigorous.days
        if (vigorous.days >= 3 && totalTenths >= 15_000) || (allDays >= 7 && totalTenths >= 30_000) { return "high" }
        let vigorousTwenty = vigorous.days >= 3 && vigorous.minutes >= 20
        let moderateOrWalkingThirty = [moderate, walk].filter { $0.minutes >= 30 }.reduce(0) { $0 + $1.days } >= 5
        if vigorousTwenty || moderateOrWalkingThirty || (allDays >= 5 && totalTenths >= 6_000) { return "moderate" }
        return "low"
    }
}
