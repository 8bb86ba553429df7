import HTTPTypes
import Hummingbird

/// An error as the API answers it: status, message (nil: the status's default sentence),
/// the error body's stable `code` if any, and headers.
///
/// `init?(_:)` is the one place where the domain errors of the storage and acceptance code
/// (`UploadError`, `SubmissionRefusal`, `StatisticsRefusal`) get their HTTP status;
/// `ErrorMiddleware` and the tus middleware both answer through it.
struct HTTPRefusal: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String?
    var code: String?
    var headers: HTTPFields

    init(_ status: HTTPResponse.Status, message: String?, code: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers
    }

    /// The answer for `error`, or nil for an error that is no refusal (the server's own failure,
    /// a client fault at the HTTP level).
    init?(_ error: any Error) {
        if let refusal = error as? HTTPRefusal {
            self = refusal
        } else if let error = error as? HTTPError {
            self.init(error.status, message: error.body, headers: error.headers)
        } else if let error = error as? UploadError {
            self.init(error)
        } else if let error = error as? SubmissionRefusal {
            self.init(error)
        } else if let error = error as? StatisticsRefusal {
            self.init(error)
        } else {
            return nil
        }
    }

    init(_ error: UploadError) {
        switch error.kind {
        case .refused: self.init(.badRequest, message: error.message)
        case .unknown: self.init(.notFound, message: error.message)
        case .busy: self.init(.conflict, message: error.message)
        case .offsetMismatch(let current): self.init(.conflict, message: error.message, headers: [.uploadOffset: String(current)])
        }
    }

    init(_ error: SubmissionRefusal) {
        let status: HTTPResponse.Status
        var headers: HTTPFields = [:]
        switch error.kind {
        case .malformed: status = .badRequest
        case .unacceptable: status = .unprocessableContent
        case .conflict: status = .conflict
        case .tooLarge: status = .contentTooLarge
        case .directoryUnavailable(let seconds):
            status = .serviceUnavailable
            headers[.retryAfter] = String(seconds)
        case .notFound: status = .notFound
        case .forbidden: status = .forbidden
        }
        self.init(status, message: error.message, code: error.code, headers: headers)
    }

    init(_ error: StatisticsRefusal) {
        switch error.kind {
        case .badParameter: self.init(.badRequest, message: error.message)
        case .forbidden: self.init(.forbidden, message: error.message)
        case .noTemplate: self.init(.notFound, message: error.message)
        }
    }
}
