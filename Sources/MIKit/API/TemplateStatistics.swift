import Foundation

/// The statistics of one template's forms: `GET /api/v1/templates/{id}/stats`, the office's
/// statistics page and `mi stats --json`. Computed by `StatisticsBuilder`, in one place for the
/// server's uploaded forms and the CLI's local ones.
public struct TemplateStatistics: Codable, Sendable, Equatable {
    public var templateID: String
    public var templateTitle: String
    /// The version whose questions lay the statistics out (the newest, or the one filtered on).
    public var templateVersion: Int
    /// What was asked for.
    public var filters: StatisticsFilters
    /// Forms counted (after the filters).
    public var forms: Int
    /// Of those, forms made by `mi simulate`.
    public var simulated: Int
    /// Forms per UTC day of submission, oldest first; days without any are absent.
    public var days: [DayCount]
    /// Per question of the template, in its order, over every counted form.
    public var questions: [QuestionStatistics]
    /// With `groupBy`: the same per option of that question (a form with several options chosen
    /// counts in each of their groups), then a group for forms that did not answer it. Every
    /// option has its group, even an empty one: nothing is cut.
    public var groups: [GroupStatistics]?
    /// When the template names a scorer: per score key that occurred, in the scorer's order,
    /// over every counted form, the scores recomputed from its answers. Absent otherwise.
    public var scores: [ScoreStatistics]?
    /// When the template has repeats: per repeat, in the order they open, its instances per
    /// counted form. Absent otherwise.
    public var repeats: [RepeatStatistics]?

    public init(templateID: String, templateTitle: String, templateVersion: Int, filters: StatisticsFilters, forms: Int,
                simulated: Int, days: [DayCount], questions: [QuestionStatistics], groups: [GroupStatistics]?,
                scores: [ScoreStatistics]? = nil, repeats: [RepeatStatistics]? = nil) {
        self.templateID = templateID
        self.templateTitle = templateTitle
        self.templateVersion = templateVersion
        self.filters = filters
        self.forms = forms
        self.simulated = simulated
        self.days = days
        self.questions = questions
        self.groups = groups
        self.scores = scores
        self.repeats = repeats
    }
}

/// How many instances of one repeat the counted forms have (a nested repeat's: all of them in
/// the form, whatever instance of its parent they stand in). An instance of a repeat that is not
/// relevant, holding no answer, is not one (as in the export).
public struct RepeatStatistics: Codable, Sendable, Equatable {
    /// The repeat's id (`pumps`).
    public var id: String
    /// Its label (its id when it has none).
    public var text: String
    /// The id of the repeat it stands in; absent at the top level.
    public var parent: String?
    /// Instances in all the counted forms.
    public var instances: Int
    /// Forms counted (a form without an instance counts, with 0).
    public var forms: Int
    /// Instances per form: the fewest, the median (the mean of the middle two for an even number
    /// of forms) and the most; 0 without forms.
    public var minimum: Int
    public var median: Double
    public var maximum: Int

    public init(id: String, text: String, parent: String?, instances: Int, forms: Int, minimum: Int, median: Double, maximum: Int) {
        self.id = id
        self.text = text
        self.parent = parent
        self.instances = instances
        self.forms = forms
        self.minimum = minimum
        self.median = median
        self.maximum = maximum
    }
}

/// One score's figures over the counted forms: numbers (`ipaq.totalMET`) summarized, words
/// (`ipaq.category`) counted.
public struct ScoreStatistics: Codable, Sendable, Equatable {
    /// `ipaq.totalMET`, `ipaq.category`, `mmse.automatic`…
    public var key: String
    /// Forms the scorer gave this score.
    public var forms: Int
    /// The numeric values, when any form had one.
    public var numbers: NumberSummary?
    /// The words (`high`, `moderate`, `low`, `excluded`…), most frequent first (ties by word),
    /// each with its percent of `forms`; when any form had one.
    public var categories: [OptionCount]?

    public init(key: String, forms: Int, numbers: NumberSummary? = nil, categories: [OptionCount]? = nil) {
        self.key = key
        self.forms = forms
        self.numbers = numbers
        self.categories = categories
    }
}

/// Which forms statistics (and exports) cover. Dates are the form's submission time, in UTC.
public struct StatisticsFilters: Codable, Sendable, Equatable {
    /// Submitted at or after.
    public var from: Date?
    /// Submitted before (the end of the `--to` day, exclusive).
    public var to: Date?
    /// One technician's forms (user name).
    public var user: String?
    /// One template version's forms.
    public var version: Int?
    /// The id of the multiple-choice or true/false question to group by.
    public var groupBy: String?
    /// Only stored submissions whose review stands here (mi-server; local forms have none).
    public var reviewState: ReviewState?

    public init(from: Date? = nil, to: Date? = nil, user: String? = nil, version: Int? = nil, groupBy: String? = nil,
                reviewState: ReviewState? = nil) {
        self.from = from
        self.to = to
        self.user = user
        self.version = version
        self.groupBy = groupBy
        self.reviewState = reviewState
    }
}

/// Forms submitted on one UTC day (or, in a question's `dates`, answers naming that day).
public struct DayCount: Codable, Sendable, Equatable {
    /// `2026-11-23`.
    public var day: String
    public var count: Int

    public init(day: String, count: Int) {
        self.day = day
        self.count = count
    }
}

/// The forms of one group: those that chose `label` of the group-by question (or, with `label`
/// nil, those that left it unanswered).
public struct GroupStatistics: Codable, Sendable, Equatable {
    public var label: String?
    public var forms: Int
    public var questions: [QuestionStatistics]
    /// The group's forms' instances per repeat, as `TemplateStatistics.repeats`.
    public var repeats: [RepeatStatistics]?

    public init(label: String?, forms: Int, questions: [QuestionStatistics], repeats: [RepeatStatistics]? = nil) {
        self.label = label
        self.forms = forms
        self.questions = questions
        self.repeats = repeats
    }
}

/// One question's figures. `answered` + `commentOnly` + `unanswered` (+ `notRelevant`) = the
/// forms counted, or for a question in a repeat the instances counted (`instances`).
public struct QuestionStatistics: Codable, Sendable, Equatable {
    public var id: String
    public var text: String
    /// The template's type name: `multipleChoice`, `trueFalse`, `shortAnswer`, `numeric`, `table`, `date`, `time`,
    /// `dateTime`, `range`, `geopoint`, `barcode`, `photo`, `audio`, `video` (a `note` takes no answer and has no entry).
    public var type: String
    /// Forms with a value (a photo, audio or video question: with a file of its kind).
    public var answered: Int
    /// Forms with a comment and no value.
    public var commentOnly: Int
    /// Forms (instances) with neither, where the question was relevant.
    public var unanswered: Int
    /// A template with form logic: forms (instances) where the question was not relevant and
    /// holds nothing — not missing, so not `unanswered`. Absent for a template without logic.
    public var notRelevant: Int?
    /// The id of the repeat the question stands in (the innermost); absent outside every repeat.
    /// Its figures are then per instance.
    public var `repeat`: String?
    /// With `repeat`: the instances counted (of every counted form), where the question was asked
    /// once each.
    public var instances: Int?
    /// Multiple choice and true/false: every option (`true` and `false` for true/false) in the
    /// template's order, then any value a form holds that the template no longer lists.
    public var options: [OptionCount]?
    /// True when a form may choose several options, so the percentages may sum past 100 %.
    public var multipleAnswers: Bool?
    /// Numeric questions.
    public var numbers: NumberSummary?
    /// Short answers: the most frequent values, most frequent first (ties by value).
    public var values: [ValueCount]?
    /// Short answers: how many distinct values there are in all (`values` may hold fewer).
    public var distinctValues: Int?
    /// Tables: one entry per cell that takes a value, row by row.
    public var cells: [CellStatistics]?
    /// Dates and dates with times: forms per calendar day of the answer (the local date it was
    /// given on), oldest first; days without any are absent. Values that are not dates are in `values`.
    public var dates: [DayCount]?
    /// Times: forms per hour of the answer, 00 to 23, every hour present. Values that are not
    /// times are in `values`.
    public var hours: [HourCount]?
    /// Locations (`geopoint`): how many, their bounding box, and the points for a plot.
    public var locations: LocationStatistics?
    /// Attached files per kind (`photo`, `video`, `audio`, `other`); kinds without any are absent.
    public var media: [MediaCount]

    public init(id: String, text: String, type: String, answered: Int, commentOnly: Int, unanswered: Int,
                options: [OptionCount]? = nil, multipleAnswers: Bool? = nil, numbers: NumberSummary? = nil,
                values: [ValueCount]? = nil, distinctValues: Int? = nil, cells: [CellStatistics]? = nil,
                dates: [DayCount]? = nil, hours: [HourCount]? = nil, media: [MediaCount] = []) {
        self.id = id
        self.text = text
        self.type = type
        self.answered = answered
        self.commentOnly = commentOnly
        self.unanswered = unanswered
        self.options = options
        self.multipleAnswers = multipleAnswers
        self.numbers = numbers
        self.values = values
        self.distinctValues = distinctValues
        self.cells = cells
        self.dates = dates
        self.hours = hours
        self.media = media
    }
}

/// Answers given at one hour of the day (`hour` 0–23: 14 holds 14:00 to 14:59:59).
public struct HourCount: Codable, Sendable, Equatable {
    public var hour: Int
    public var count: Int

    public init(hour: Int, count: Int) {
        self.hour = hour
        self.count = count
    }
}

/// The points of a location question: how many, the box that holds them all, and the points
/// themselves (the first `StatisticsBuilder.plottedPoints` in the order the forms were counted)
/// for a plot: the office draws them as SVG, `mi stats` as a character plot.
public struct LocationStatistics: Codable, Sendable, Equatable {
    /// Points counted (answers that are locations).
    public var count: Int
    /// The smallest latitude/longitude box holding every point; nil without points.
    public var boundingBox: LocationBox?
    /// The points plotted, latitude and longitude only.
    public var points: [PlottedPoint]
    /// Points counted but not listed in `points` (past the limit).
    public var pointsOmitted: Int

    public init(count: Int, boundingBox: LocationBox?, points: [PlottedPoint], pointsOmitted: Int) {
        self.count = count
        self.boundingBox = boundingBox
        self.points = points
        self.pointsOmitted = pointsOmitted
    }
}

/// Degrees: `south` ≤ `north`, `west` ≤ `east`.
public struct LocationBox: Codable, Sendable, Equatable {
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double

    public init(_ box: GeoBoundingBox) {
        south = box.south
        west = box.west
        north = box.north
        east = box.east
    }
}

/// One point of a plot, in decimal degrees.
public struct PlottedPoint: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// How many respondents chose one option.
public struct OptionCount: Codable, Sendable, Equatable {
    public var label: String
    public var count: Int
    /// Of the forms that answered the question (0 when none did), 0–100.
    public var percent: Double

    public init(label: String, count: Int, percent: Double) {
        self.label = label
        self.count = count
        self.percent = percent
    }
}

/// A value and how many forms gave it.
public struct ValueCount: Codable, Sendable, Equatable {
    public var value: String
    public var count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }
}

/// The summary of a set of numbers. Quartiles use the inclusive method (Excel's QUARTILE.INC,
/// Python's `statistics.quantiles(method="inclusive")`); the standard deviation is the sample's
/// (n − 1), nil below two values.
public struct NumberSummary: Codable, Sendable, Equatable {
    public var count: Int
    public var mean: Double
    public var standardDeviation: Double?
    public var minimum: Double
    public var lowerQuartile: Double
    public var median: Double
    public var upperQuartile: Double
    public var maximum: Double
    /// Adjacent bins from the minimum to the maximum; whole numbers for integer questions.
    public var histogram: [HistogramBin]
    /// True when the values are whole numbers binned as such (an integer question, or a table
    /// cell holding only whole numbers): a bin then holds the whole numbers `lower` … `upper − 1`,
    /// so a chart can label it `10–19`, or `7` when it is one wide.
    public var integer: Bool?

    public init(count: Int, mean: Double, standardDeviation: Double?, minimum: Double, lowerQuartile: Double,
                median: Double, upperQuartile: Double, maximum: Double, histogram: [HistogramBin], integer: Bool? = nil) {
        self.count = count
        self.mean = mean
        self.standardDeviation = standardDeviation
        self.minimum = minimum
        self.lowerQuartile = lowerQuartile
        self.median = median
        self.upperQuartile = upperQuartile
        self.maximum = maximum
        self.histogram = histogram
        self.integer = integer
    }
}

/// Values `lower` ≤ x < `upper` (the last bin also holds `upper`).
public struct HistogramBin: Codable, Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public var count: Int

    public init(lower: Double, upper: Double, count: Int) {
        self.lower = lower
        self.upper = upper
        self.count = count
    }
}

/// One table cell's figures: numbers when every value in it reads as a number, else the most
/// frequent values.
public struct CellStatistics: Codable, Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var rowLabel: String
    public var columnLabel: String
    /// Forms whose table has a value in this cell.
    public var answered: Int
    public var numbers: NumberSummary?
    public var values: [ValueCount]?
    public var distinctValues: Int?

    public init(row: Int, column: Int, rowLabel: String, columnLabel: String, answered: Int,
                numbers: NumberSummary? = nil, values: [ValueCount]? = nil, distinctValues: Int? = nil) {
        self.row = row
        self.column = column
        self.rowLabel = rowLabel
        self.columnLabel = columnLabel
        self.answered = answered
        self.numbers = numbers
        self.values = values
        self.distinctValues = distinctValues
    }
}

/// Attached files of one kind.
public struct MediaCount: Codable, Sendable, Equatable {
    /// `photo`, `video`, `audio` or `other`.
    public var kind: String
    public var count: Int

    public init(kind: String, count: Int) {
        self.kind = kind
        self.count = count
    }
}
