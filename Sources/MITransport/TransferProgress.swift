/// Receives upload progress. Called on the uploading thread, at most ten times a second; `total`
/// is the whole multipart body's size (a little more than the files'). `finish` is called once
/// when the upload ends, whether it succeeded or not.
public protocol TransferProgress: AnyObject {
    /// `sent` of `total` bytes are on their way (never decreasing within one attempt; a retried
    /// upload starts again from 0).
    func update(sent: Int64, total: Int64)
    /// The upload is over, successfully or not.
    func finish()
}
