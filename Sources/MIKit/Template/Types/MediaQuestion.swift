import Foundation

/// `photo`, `audio`, `video`: the answer *is* the attached file (one, or up to `maxFiles`),
/// attached through the form's media (`mi attach`, `mi answer FORM Q FILE`, `mi fill`) and named
/// as every media file is (`Qid4(1).jpg`). The question holds no value; it is done when it has
/// a file of its kind or a comment (the seed's answer-or-comment rule, the file counting as the
/// answer). Files of another kind, and more than `maxFiles`, are refused.
public protocol MediaQuestion: QuestionType {
    /// The kind of file the question takes.
    static var kind: MediaKind { get }
    /// The most files the answer may have (at least 1).
    var maxFiles: Int { get }
    init(maxFiles: Int)
}

/// The files that are a question's answer: their kind and how many at most.
public struct MediaAnswer: Sendable, Equatable {
    public var kind: MediaKind
    public var maxFiles: Int
    public init(kind: MediaKind, maxFiles: Int) { self.kind = kind; self.maxFiles = maxFiles }
}

extension MediaQuestion {
    // MARK: Template keys

    public static var keys: [TemplateKeys.Key] { [.maxFiles] }
    public static var editorFields: [EditorField] { [EditorField(.maxFiles, .wholeNumber, "Files at most", placeholder: "1")] }

    /// `maxFiles`: a whole number of at least 1; 1 when absent.
    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        guard let value = object[validator.keys[.maxFiles]], value != .null else { return Self(maxFiles: 1) }
        guard let number = value.numberValue else {
            validator.problem(label, .maxFiles, "expected a whole number of at least 1, found \(value.kindDescription)")
            return nil
        }
        guard number.rounded() == number, number >= 1, number <= 1000 else {
            validator.problem(label, .maxFiles, "expected a whole number from 1 to 1000, found \(formatNumber(number))")
            return nil
        }
        return Self(maxFiles: Int(number))
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        if maxFiles != 1 { object[keys[.maxFiles]] = .number(Double(maxFiles)) }
    }

    /// "photo (one file)", "photo (up to 3 files)".
    public var typeDescription: String {
        "\(Self.kind.rawValue) (\(maxFiles == 1 ? "one file" : "up to \(maxFiles) files"))"
    }

    // MARK: Answers

    /// A typed line is never the answer: the file is (`mi answer FORM Q FILE` and `mi fill` attach it).
    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        throw rules.refuse(takesNoValue)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        throw rules.refuse(takesNoValue)
    }

    var takesNoValue: String {
        "\(Self.a(Self.kind)) question takes no typed value: its answer is the attached \(Self.kind.rawValue) (`mi attach FORM QUESTION FILE`)"
    }

    /// "a photo", "an audio".
    static func a(_ kind: MediaKind) -> String { (kind == .audio ? "an " : "a ") + kind.rawValue }

    public var answerMedia: MediaAnswer? { MediaAnswer(kind: Self.kind, maxFiles: maxFiles) }

    /// Done with at least one file of its kind, or a comment; a value left from another type
    /// of question does not count.
    public func isDone(_ answer: Answer) -> Bool {
        answer.media.contains { MediaKind(extension: ($0 as NSString).pathExtension) == Self.kind }
            || !(answer.comment ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Every file of the question's kind, and no more than `maxFiles`.
    public func checkMedia(_ names: [String], rules: AnswerRules) throws {
        for name in names {
            let kind = MediaKind(extension: (name as NSString).pathExtension)
            guard kind == Self.kind else {
                let what = kind.map { "\(Self.a($0)) file" } ?? "not a media file"
                throw rules.refuse("\(SafeName.printable((name as NSString).lastPathComponent)) is \(what), but the question takes \(Self.a(Self.kind)) (\(Self.extensions.joined(separator: ", ")))")
            }
        }
        guard names.count <= maxFiles else {
            throw rules.refuse("the question takes \(maxFiles == 1 ? "one \(Self.kind.rawValue)" : "at most \(maxFiles) files"), and it would have \(names.count) — detach one first (`mi detach FORM MEDIA`)")
        }
    }

    /// The extensions of the question's kind, sorted.
    static var extensions: [String] { MediaKind.extensions.filter { $0.value == kind }.keys.sorted() }

    // MARK: mi fill

    public var answerHint: String { "Path of the \(Self.kind.rawValue) file " }

    // MARK: Simulation, statistics, exports, search

    /// No file can be made up: `mi simulate` leaves `simulatedStandIn` as a comment instead.
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? { nil }
    public var simulatedStandIn: String { "Simulated: no \(Self.kind.rawValue) (none can be made up)" }

    public var tally: TallyShape { .files(Self.kind) }

    /// The file names, space-separated (as ODK Central exports a media question).
    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] {
        [form.answer(for: id).media.joined(separator: " ")]
    }

    // MARK: Presentation

    /// A value left from another type of question, as text.
    public func presentation(of value: AnswerValue?) -> AnswerShape? { value.map { .text($0.display) } }

    /// The attached files; nil (no answer) when there are none.
    public func presentation(of answer: Answer) -> AnswerShape? {
        guard answer.media.isEmpty else { return .media(kind: Self.kind, names: answer.media) }
        return presentation(of: answer.value)
    }
}

/// `photo`: the answer is a photo (or up to `maxFiles`).
public struct PhotoQuestion: MediaQuestion {
    public static let kind = MediaKind.photo
    public static let typeKey = TemplateKeys.Key("photo")
    public static let displayName = "Photo"
    public var maxFiles: Int
    public init(maxFiles: Int = 1) { self.maxFiles = maxFiles }
}

/// `audio`: the answer is a recording (or up to `maxFiles`).
public struct AudioQuestion: MediaQuestion {
    public static let kind = MediaKind.audio
    public static let typeKey = TemplateKeys.Key("audio")
    public static let displayName = "Audio"
    public var maxFiles: Int
    public init(maxFiles: Int = 1) { self.maxFiles = maxFiles }
}

/// `video`: the answer is a video (or up to `maxFiles`).
public struct VideoQuestion: MediaQuestion {
    public static let kind = MediaKind.video
    public static let typeKey = TemplateKeys.Key("video")
    public static let displayName = "Video"
    public var maxFiles: Int
    public init(maxFiles: Int = 1) { self.maxFiles = maxFiles }
}

extension TemplateKeys.Key {
    public static let photo = PhotoQuestion.typeKey
    public static let audio = AudioQuestion.typeKey
    public static let video = VideoQuestion.typeKey
    public static let maxFiles = TemplateKeys.Key("maxFiles")
}

extension Question.Kind {
    public static func photo(maxFiles: Int = 1) -> Self { Self(PhotoQuestion(maxFiles: maxFiles)) }
    public static func audio(maxFiles: Int = 1) -> Self { Self(AudioQuestion(maxFiles: maxFiles)) }
    public static func video(maxFiles: Int = 1) -> Self { Self(VideoQuestion(maxFiles: maxFiles)) }
}
