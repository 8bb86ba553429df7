import HTTPTypes

/// A refusal whose error body carries a stable `code` next to its message
/// (`{"error": {"message": "…", "code": "once-per-user"}}`), so a client can tell it from other
/// refusals of the same status. `ErrorMiddleware` writes it.
struct CodedRefusal: Error, Sendable {
    let status: HTTPResponse.Status
    let code: String
    let message: String
}
