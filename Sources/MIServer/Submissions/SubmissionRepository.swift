import Foundation
import MIKit

/// Where submissions are recorded. Implementations serialize `record` calls so that the check
/// for an existing id, the placing of the files and the insert happen as one step.
public protocol SubmissionRepository: Sendable {
    /// Records `receipt` unless a submission with its id exists.
    ///
    /// When the id is free, `placeFiles` runs inside the same transaction, before the insert
    /// (it moves the received files into the submission's folder); if the transaction then
    /// fails, `removeFiles` runs, serialized with other commits, and the error is thrown.
    /// When the id is taken, neither runs and the stored receipt comes back.
    func record(_ receipt: Receipt, placeFiles: @escaping @Sendable () throws -> Void,
                removeFiles: @escaping @Sendable () -> Void) async throws -> RecordOutcome
    /// The stored receipt of submission `id` (lowercase UUID), or nil.
    func receipt(id: String) async throws -> Receipt?
    /// Every receipt, newest first.
    func receipts() async throws -> [Receipt]
    /// The ids of every committed submission.
    func submissionIDs() async throws -> Set<String>
}

public enum RecordOutcome: Sendable, Equatable {
    /// Stored now.
    case recorded(Receipt)
    /// A submission with this id was already stored; its receipt.
    case existing(Receipt)
}
