import Foundation

/// The MMSE items a program can check against the form's date and known answers; the rest are
/// left to an examiner.
enum MMSEScorer {
    static let requirements: [Scoring.Requirement] = [
        .init(question: "timeQuestionWeekDay", accepts: [.text]),
        .init(question: "timeQuestionYear", accepts: [.wholeNumber]),
        .init(question: "timeQuestionMonth", accepts: [.text, .wholeNumber]),
        .init(question: "timeQuestionDay", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionOne", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionTwo", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionThree", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionFour", accepts: [.wholeNumber]),
        .init(question: "concentrationQuestionFive", accepts: [.wholeNumber]),
        .init(question: "watchImageQuestion", accepts: [.text]),
        .init(question: "pencilImageQuestion", accepts: [.text]),
    ]

    static let keys = ["mmse.automatic", "mmse.automaticMax"]

    static let serialSevens = ["concentrationQuestionOne", "concentrationQuestionTwo", "concentrationQuestionThree",
                               "concentrationQuestionFour", "concentrationQuestionFive"]

    /// Day names by `Calendar` weekday (1 = Sunday), Spanish first: the first is the one shown.
    static let weekdayNames: [[String]] = [
        ["domingo", "sunday"], ["lunes", "monday"], ["martes", "tuesday"], ["miércoles", "wednesday"],
        ["jueves", "thursday"], ["viernes", "friday"], ["sábado", "saturday"],
    ]

    /// Month names by number (1 = January), Spanish first: the first is the one shown.
    static let monthNames: [[String]] = [
        ["enero", "january"], ["febrero", "february"], ["marzo", "march"], ["abril", "april"], ["mayo", "may"],
        ["junio", "june"], ["julio", "july"], ["agosto", "august"], ["septiembre", "setiembre", "september"],
        ["octubre", "october"], ["noviembre", "november"], ["diciembre", "december"],
    ]

    static let watchNames = ["reloj"]
    static let penNames = ["bolígrafo", "pluma", "lapicero"]
    /// A leading article a respondent may write before a name ("un reloj").
    static let articles: Set<String> = ["un", "una", "el", "la"]

    static func score(_ form: Form) -> ScoreSheet {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = form.calendarTimeZone
        let date = calendar.dateComponents([.year, .month, .day, .weekday], from: form.createdAt)
        var judged: [String: ScoreItem] = [:]

        if let weekday = date.weekday, weekdayNames.indices.contains(weekday - 1) {
            let names = weekdayNames[weekday - 1]
            judged["timeQuestionWeekDay"] = judge(form, "timeQuestionWeekDay", expected: names[0]) { value in
                guard case .text(let text) = value else { return false }
                return names.map(normalized).contains(normalized(text))
            }
        }
        if let year = date.year {
            judged["timeQuestionYear"] = judge(form, "timeQuestionYear", expected: String(year)) { $0.wholeNumber == year }
        }
        if let month = date.month, monthNames.indices.contains(month - 1) {
            let names = monthNames[month - 1]
            judged["timeQuestionMonth"] = judge(form, "timeQuestionMonth", expected: names[0]) { value in
                if let number = value.wholeNumber { return number == month }
                return names.map(normalized).contains(normalized(value.display))
            }
        }
        if let day = date.day {
            judged["timeQuestionDay"] = judge(form, "timeQuestionDay", expected: String(day)) { $0.wholeNumber == day }
        }

        // Each subtraction is judged against the respondent's previous answer, so one slip costs
        // one point; after an unusable answer the chain's own value is expected.
        var previous: Int? = 100
        for (index, question) in serialSevens.enumerated() {
            let expected = (previous ?? 100 - 7 * index) - 7
            judged[question] = judge(form, question, expected: String(expected)) { $0.wholeNumber == expected }
            previous = form.answer(for: question).value?.wholeNumber
        }

        judged["watchImageQuestion"] = judge(form, "watchImageQuestion", expected: watchNames[0]) { value in
            guard case .text(let text) = value else { return false }
            return watchNames.map(normalized).contains(withoutArticle(normalized(text)))
        }
        judged["pencilImageQuestion"] = judge(form, "pencilImageQuestion", expected: penNames[0]) { value in
            guard case .text(let text) = value else { return false }
            return penNames.map(normalized).contains(withoutArticle(normalized(text)))
        }

        let items = form.template.questions.map { question in
            judged[question.id] ?? ScoreItem(question: question.id, result: .examiner, points: nil, maxPoints: 1)
        }
        let automatic = items.filter { $0.result != .examiner }
        let points = automatic.reduce(0) { $0 + ($1.points ?? 0) }
        let examiner = items.filter { $0.result == .examiner }.map(\.question)
        var note = "Not a full 30-point MMSE: mmse.automatic counts only the \(automatic.count) items a program can check "
            + "(orientation to time, serial sevens, naming the pictured objects)."
        if !examiner.isEmpty { note += " An examiner must score: \(examiner.joined(separator: ", "))." }
        return ScoreSheet(scoring: .mmse,
                          values: [ScoreEntry("mmse.automatic", .number(Double(points))),
                                   ScoreEntry("mmse.automaticMax", .number(Double(automatic.count)))],
                          items: items, note: note)
    }

    /// The item of `question` when the template has it: unanswered (no value, or a comment
    /// only), correct or incorrect by `isCorrect`.
    private static func judge(_ form: Form, _ question: String, expected: String,
                              isCorrect: (AnswerValue) -> Bool) -> ScoreItem? {
        guard form.template.question(id: question) != nil else { return nil }
        guard let value = form.answer(for: question).value else {
            return ScoreItem(question: question, result: .unanswered, points: 0, maxPoints: 1, expected: expected)
        }
        let correct = isCorrect(value)
        return ScoreItem(question: question, result: correct ? .correct : .incorrect, points: correct ? 1 : 0,
                         maxPoints: 1, expected: expected)
    }

    /// Lowercase, without accents, surrounding spaces or punctuation, inner spaces single.
    static func normalized(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "es"))
            .lowercased()
            .components(separatedBy: CharacterSet.alphanumerics.inverted)
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// `text` (already normalized) without a leading article.
    static func withoutArticle(_ text: String) -> String {
        let words = text.split(separator: " ")
        guard words.count > 1, let first = words.first, articles.contains(String(first)) else { return text }
        return words.dropFirst().joined(separator: " ")
    }
}

extension AnswerValue {
    /// The whole number this value holds: a number, or text that is only digits ("3", " 03 ").
    var wholeNumber: Int? {
        switch self {
        case .number(let number):
            guard number.isFinite, number.rounded() == number, abs(number) < 1e15 else { return nil }
            return Int(number)
        case .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.count <= 9, trimmed.allSatisfy(\.isASCII) else { return nil }
            return Int(trimmed)
        default:
            return nil
        }
    }
}
