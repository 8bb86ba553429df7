import Foundation
import MIKit

/// Who may read a stored submission: a foreman any, a technician only their own forms'.
enum SubmissionAccess {
    /// The receipt of submission `id` (any spelling of the UUID) for `session`: 404 when there
    /// is no such submission, 403 when it is another technician's.
    static func receipt(_ id: String, for session: SessionClaims, in repository: any SubmissionRepository) async throws -> Receipt {
        guard let formID = FormID(id), let receipt = try await repository.receipt(id: formID) else {
            throw SubmissionRefusal(.notFound, "no submission \(SafeName.printable(id)) on the server — pick one from the submissions list")
        }
        guard session.role == .foreman || receipt.user == session.sub else {
            throw SubmissionRefusal(.forbidden, "submission \(receipt.id) is another technician's form — technicians see only their own")
        }
        return receipt
    }

    /// The stored form.json of a committed submission, decoded.
    static func form(of receipt: Receipt, layout: DataLayout) async throws -> (form: Form, data: Data) {
        let url = layout.folder(of: receipt).appendingPathComponent(Store.formFileName)
        return try await Blocking.run {
            let data = try Data(contentsOf: url)
            return (try FormFile.decode(data), data)
        }
    }
}
