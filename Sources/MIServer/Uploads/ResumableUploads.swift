import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MIKit
#if canImport(Glibc)
import Glibc
#endif

/// What `uploads/<id>/info.json` holds about one resumable upload.
struct ResumableUploadInfo: Codable, Sendable, Equatable {
    /// The form the media file belongs to (lowercase UUID).
    var formID: String
    /// The media file's name in the form (`Qid0(1).jpg`).
    var name: String
    /// The whole file's size, announced at creation (`Upload-Length`).
    var length: Int64
    /// The user whose session created it: only they may continue, read or take it.
    var owner: String
    var created: Date
    var expires: Date
}

/// The resumable (tus 1.0) uploads under `DataDirectory/uploads/<id>/`: `info.json` and `data`,
/// whose size is the upload's offset.
///
/// A running SHA-256 of each upload's data is kept here, so taking a finished upload into a
/// submission needs no second read of the file; when the hash is missing or does not cover the
/// whole file (the server restarted), it is rebuilt from the file. One request at a time may
/// write to an upload: a second one is refused (409) rather than queued.
actor ResumableUploads {
    /// What is known in memory about an upload.
    private struct Upload {
        var info: ResumableUploadInfo
        /// The hash of the data file's first `hash.bytes` bytes, when known.
        var hash: RunningHash?
        /// A request is writing to, or taking, this upload.
        var busy = false
        /// While a PATCH writes: the offset it began at, the last one known good.
        var patchStart: Int64?
    }

    nonisolated let folder: URL
    /// Where a new upload's folder is built before it is renamed into `folder`: this server's
    /// receiving folder, swept when the server is gone (a server sharing `folder` from another
    /// machine cannot tell whether a temporary name's process there still lives).
    nonisolated let staging: URL
    nonisolated let expiry: TimeInterval
    nonisolated let now: @Sendable () -> Date
    nonisolated let logger: Logger
    private var uploads: [String: Upload] = [:]

    static let infoName = "info.json"
    static let dataName = "data"

    init(folder: URL, staging: URL, expiryHours: Int, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.folder = folder
        self.staging = staging
        self.expiry = TimeInterval(expiryHours) * 3600
        self.now = now
        self.logger = logger
    }

    nonisolated func folder(of id: String) -> URL { folder.appendingPathComponent(id, isDirectory: true) }
    nonisolated func dataFile(of id: String) -> URL { folder(of: id).appendingPathComponent(Self.dataName) }

    /// The canonical (lowercase) form of an upload id from a URL, or nil when it is no UUID:
    /// only canonical ids become path components.
    nonisolated static func canonicalID(_ text: String) -> String? {
        UUID(uuidString: text)?.uuidString.lowercased()
    }

    // MARK: - Creation, status, termination

    /// Creates an empty upload owned by `owner` and returns its id and info. The folder is
    /// built under a temporary name and renamed into place, so a crash leaves no half-made upload.
    func create(formID: FormID, name: String, length: Int64, owner: String) async throws -> (id: String, info: ResumableUploadInfo) {
        let created = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let info = ResumableUploadInfo(formID: formID.description, name: name, length: length, owner: owner,
                                       created: created, expires: created.addingTimeInterval(expiry))
        let id = UUID().uuidString.lowercased()
        let destination = folder(of: id)
        let staging = self.staging
        try await Blocking.run {
            let temporary = staging.appendingPathComponent(DurableFile.temporaryName(), isDirectory: true)
            do {
                try DurableFile.makeFolder(temporary)
                try DurableFile.write(try WireJSON.encoder().encode(info), to: temporary.appendingPathComponent(Self.infoName),
                                      permissions: 0o600)
                try DurableFile.write(Data(), to: temporary.appendingPathComponent(Self.dataName), permissions: 0o600)
                try DurableFile.moveNoReplace(temporary, to: destination)
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
        }
        uploads[id] = Upload(info: info, hash: RunningHash())
        logger.info("resumable upload created", metadata: [
            "upload": .string(id), "form": .string(info.formID), "name": .string(name),
            "length": .stringConvertible(length), "owner": .string(owner),
        ])
        return (id, info)
    }

    /// The upload's info and offset (the data file's size, or where a PATCH under way began:
    /// its bytes may yet be dropped); 404 when it is unknown, expired or another user's.
    func status(_ id: String, owner: String) async throws -> (info: ResumableUploadInfo, offset: Int64) {
        let upload = try await load(id, owner: owner)
        if let start = upload.patchStart { return (upload.info, start) }
        let data = dataFile(of: id)
        let size = try await Blocking.run { try Self.size(of: data) }
        guard let size else {
            uploads[id] = nil
            throw Self.notFound(id)
        }
        return (upload.info, size)
    }

    /// Removes the upload (tus termination); 404 as for `status`, 409 while a request writes to it.
    func terminate(_ id: String, owner: String) async throws {
        let upload = try await load(id, owner: owner)
        guard !upload.busy else { throw Self.busy(id) }
        uploads[id]?.busy = true
        let folder = folder(of: id)
        let parent = self.folder
        do {
            try await Blocking.run {
                try FileManager.default.removeItem(at: folder)
                try DurableFile.syncFolder(parent)
            }
        } catch {
            uploads[id]?.busy = false
            throw error
        }
        uploads[id] = nil
        logger.info("resumable upload terminated", metadata: ["upload": .string(id)])
    }

    // MARK: - Appending (PATCH)

    /// Starts a PATCH: checks the upload is this user's, not busy (409), and that `offset` is
    /// the data file's size (409 with the real `Upload-Offset`); returns the open file with the
    /// hash up to the offset. Every call must be followed by `finishAppend`.
    func beginAppend(_ id: String, owner: String, offset: Int64,
                     checksum: UploadChecksum.Algorithm) async throws -> UploadAppender {
        let upload = try await load(id, owner: owner)
        guard !upload.busy else { throw Self.busy(id) }
        uploads[id]?.busy = true
        let data = dataFile(of: id)
        let known = upload.hash
        let opened: (fd: Int32, size: Int64, hash: RunningHash)
        do {
            opened = try await Blocking.run { try Self.openForAppend(data, hash: known) }
        } catch {
            uploads[id]?.busy = false
            throw error
        }
        uploads[id]?.hash = opened.hash
        guard opened.size == offset else {
            close(opened.fd)
            uploads[id]?.busy = false
            throw HTTPError(.conflict, headers: [.uploadOffset: String(opened.size)],
                            message: "Upload-Offset \(offset) is not the upload's offset \(opened.size) — ask the server for the offset (HEAD) and continue from there")
        }
        uploads[id]?.patchStart = offset
        return UploadAppender(id: id, fd: opened.fd, start: offset, info: upload.info, hash: opened.hash,
                              checksum: checksum)
    }

    /// Ends a PATCH. `keep`: the bytes written become part of the upload (synced when they
    /// complete it); else the file is truncated back to where the PATCH began. Returns the
    /// upload's offset.
    @discardableResult
    func finishAppend(_ appender: UploadAppender, keep: Bool) async throws -> Int64 {
        let id = appender.id
        defer {
            uploads[id]?.busy = false
            uploads[id]?.patchStart = nil
        }
        do {
            let offset = try await Blocking.run {
                defer { appender.close() }
                if keep {
                    // Synced once, when the last byte arrived: an intermediate offset lost in a
                    // crash only makes the client send those bytes again (the offset is the
                    // file's size, and the running hash is rebuilt from the file), while a sync
                    // per PATCH would cost every upload a disk flush per chunk.
                    let offset = appender.start + appender.written
                    if offset == appender.length { try appender.sync() }
                    return offset
                }
                try appender.truncateBack()
                return appender.start
            }
            if keep { uploads[id]?.hash = appender.hash }
            return offset
        } catch {
            // The file's content is uncertain: the hash is rebuilt from it next time.
            uploads[id]?.hash = nil
            throw error
        }
    }

    // MARK: - Taking a finished upload

    /// A finished resumable upload moved into `destination` (a file path inside the incoming
    /// folder). Throws HTTPError 400 with a clear message when the upload is unknown, belongs to
    /// another user, is for another form id or media name, or is not complete (offset < length);
    /// moves the data file by rename (same filesystem), removes the upload's folder and state.
    /// Returns the file's size and SHA-256 (lowercase hex). `destination`'s folder must exist
    /// and `destination` must not (`StoreError.exists` otherwise; the upload is then kept).
    func take(_ uploadID: String, owner: String, formID: String, name: String,
              to destination: URL) async throws -> (size: Int64, sha256: String) {
        let printable = SafeName.printable(uploadID)
        guard let id = Self.canonicalID(uploadID), let upload = try? await load(id, owner: owner) else {
            throw HTTPError(.badRequest, message: "resumable upload \(printable) is not on the server (unknown, expired or another user's) — upload \(SafeName.printable(name)) again")
        }
        guard FormID(formID)?.description == upload.info.formID else {
            throw HTTPError(.badRequest, message: "resumable upload \(id) belongs to form \(upload.info.formID), not \(SafeName.printable(formID)) — upload \(SafeName.printable(name)) again")
        }
        guard name == upload.info.name else {
            throw HTTPError(.badRequest, message: "resumable upload \(id) holds \(SafeName.printable(upload.info.name)), not \(SafeName.printable(name)) — upload \(SafeName.printable(name)) again")
        }
        guard !upload.busy else {
            throw HTTPError(.badRequest, message: "resumable upload \(id) is still receiving data — finish sending \(SafeName.printable(name)) first")
        }
        uploads[id]?.busy = true
        let data = dataFile(of: id)
        let folder = folder(of: id)
        let parent = self.folder
        let known = upload.hash
        let length = upload.info.length
        let result: Result<(size: Int64, hash: RunningHash), HTTPError>
        do {
            result = try await Blocking.run {
                let opened = try Self.openForAppend(data, hash: known)
                defer { Glibc.close(opened.fd) }
                guard opened.size == length else {
                    return .failure(HTTPError(.badRequest, message: "resumable upload \(id) of \(SafeName.printable(name)) is not complete (\(opened.size) of \(length) bytes) — send the rest first"))
                }
                try DurableFile.moveNoReplace(data, to: destination)
                // The file is handed over; what is left (info.json) the expiry sweep would remove too.
                try? FileManager.default.removeItem(at: folder)
                try? DurableFile.syncFolder(parent)
                return .success((opened.size, opened.hash))
            }
        } catch {
            uploads[id]?.busy = false
            throw error
        }
        switch result {
        case .failure(let error):
            uploads[id]?.busy = false
            throw error
        case .success(let taken):
            uploads[id] = nil
            logger.info("resumable upload taken", metadata: [
                "upload": .string(id), "form": .string(upload.info.formID), "name": .string(name),
                "bytes": .stringConvertible(taken.size),
            ])
            return (taken.size, taken.hash.hex)
        }
    }

    // MARK: - Expiry

    /// Removes every upload past its expiry that no request is using (finished ones too: a
    /// finished upload no submission took within the expiry is abandoned), folders without a
    /// readable info.json, and temporary folders of dead processes. Logs and returns the ids removed.
    @discardableResult
    func removeExpired() async -> [String] {
        let now = now()
        let busy = Set(uploads.filter(\.value.busy).keys)
        let folder = self.folder
        let removed: [String]
        do {
            removed = try await Blocking.run {
                let leftovers = DurableFile.removeLeftovers(in: folder)
                var removed: [String] = []
                for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                where !name.hasPrefix(DurableFile.temporaryPrefix) && !busy.contains(name) {
                    let info = try? WireJSON.decoder().decode(
                        ResumableUploadInfo.self, from: Data(contentsOf: folder.appendingPathComponent(name).appendingPathComponent(Self.infoName)))
                    if let info, info.expires > now { continue }
                    try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
                    removed.append(name)
                }
                if !removed.isEmpty || !leftovers.isEmpty { try DurableFile.syncFolder(folder) }
                return removed
            }
        } catch {
            logger.error("could not remove expired resumable uploads", metadata: ["error": .string("\(error)")])
            return []
        }
        for id in removed { uploads[id] = nil }
        if !removed.isEmpty {
            logger.notice("removed expired resumable uploads", metadata: ["uploads": .array(removed.map { .string($0) })])
        }
        return removed
    }

    // MARK: - Helpers

    /// The upload's state, read from info.json when not in memory; 404 when it is unknown,
    /// expired or another user's (the same answer, so ids cannot be probed).
    private func load(_ id: String, owner: String) async throws -> Upload {
        if uploads[id] == nil {
            let file = folder(of: id).appendingPathComponent(Self.infoName)
            let info = try? await Blocking.run { try WireJSON.decoder().decode(ResumableUploadInfo.self, from: Data(contentsOf: file)) }
            guard let info else { throw Self.notFound(id) }
            if uploads[id] == nil { uploads[id] = Upload(info: info) }
        }
        guard let upload = uploads[id], upload.info.owner == owner, upload.info.expires > now() else {
            throw Self.notFound(id)
        }
        return upload
    }

    static func ioError(_ operation: String, _ file: URL) -> StoreError {
        .io(operation: operation, path: file.path, reason: String(cString: strerror(errno)))
    }

    private static func notFound(_ id: String) -> HTTPError {
        HTTPError(.notFound, message: "no resumable upload \(id) on the server (unknown, expired or another user's) — start the upload again")
    }

    private static func busy(_ id: String) -> HTTPError {
        HTTPError(.conflict, message: "another request is sending to resumable upload \(id) — wait for it to end, then ask for the offset (HEAD)")
    }

    /// The file's size, or nil when it does not exist.
    private static func size(of file: URL) throws -> Int64? {
        var info = stat()
        guard stat(file.path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ioError("inspect", file)
        }
        return Int64(info.st_size)
    }

    /// Opens the data file for writing, locked against other processes (409 when another
    /// holds it), with its size and the hash of all of it: `known` when it covers the whole
    /// file, else hashed from the file.
    private static func openForAppend(_ file: URL, hash known: RunningHash?) throws -> (fd: Int32, size: Int64, hash: RunningHash) {
        let fd = open(file.path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw HTTPError(.notFound, message: "the resumable upload's data is gone (expired) — start the upload again") }
            throw ioError("open", file)
        }
        do {
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                throw HTTPError(.conflict, message: "another server process is writing to this resumable upload — wait for it to end, then ask for the offset (HEAD)")
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw ioError("inspect", file) }
            let size = Int64(info.st_size)
            if let known, known.bytes == size { return (fd, size, known) }
            return (fd, size, try RunningHash.of(fd: fd, bytes: size, path: file))
        } catch {
            close(fd)
            throw error
        }
    }
}

/// A SHA-256 over the first `bytes` bytes of a file. swift-crypto's `SHA256` is a value type
/// (copy-on-write) not marked Sendable; each copy is used by one task at a time.
struct RunningHash: @unchecked Sendable {
    private var hasher = SHA256()
    private(set) var bytes: Int64 = 0

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: buffer)
        bytes += Int64(buffer.count)
    }

    /// The digest so far, lowercase hex.
    var hex: String { Hex.lowercase(hasher.finalize()) }

    /// The hash of a file's first `bytes` bytes, read in 1 MiB chunks.
    static func of(fd: Int32, bytes: Int64, path: URL) throws -> RunningHash {
        var hash = RunningHash()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while hash.bytes < bytes {
            let wanted = Int(min(Int64(chunk), bytes - hash.bytes))
            let count = pread(fd, buffer.baseAddress, wanted, off_t(hash.bytes))
            if count < 0 {
                if errno == EINTR { continue }
                throw ResumableUploads.ioError("read", path)
            }
            if count == 0 { throw StoreError.io(operation: "read", path: path.path, reason: "the file is shorter than expected") }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return hash
    }
}

/// The two halves of one `append`: each of `concurrentPerform`'s two iterations touches only
/// its own fields, and `concurrentPerform` returns after both, which is why it can be
/// `@unchecked Sendable`.
private final class AppendWork: @unchecked Sendable {
    var body: UploadChecksum.Hasher
    var file: RunningHash
    var failure: (any Error)?

    init(body: UploadChecksum.Hasher, file: RunningHash) {
        self.body = body
        self.file = file
    }
}

/// One PATCH's hold on an upload: the open (and locked) data file, where the PATCH began, and
/// the running hash of the whole file plus the hash of this request's body for its checksum.
///
/// Not thread-safe by itself: one request's task drives it, one blocking call at a time, each
/// awaited before the next, which is why it can be `@unchecked Sendable`.
final class UploadAppender: @unchecked Sendable {
    let id: String
    let start: Int64
    let info: ResumableUploadInfo
    var length: Int64 { info.length }
    private let fd: Int32
    private var isOpen = true
    private(set) var written: Int64 = 0
    private(set) var hash: RunningHash
    private var bodyHasher: UploadChecksum.Hasher

    init(id: String, fd: Int32, start: Int64, info: ResumableUploadInfo, hash: RunningHash,
         checksum: UploadChecksum.Algorithm) {
        bodyHasher = UploadChecksum.Hasher(checksum)
        self.id = id
        self.fd = fd
        self.start = start
        self.info = info
        self.hash = hash
    }

    deinit { close() }

    /// Writes body bytes at the end of what was written so far. Refuses (400, nothing written
    /// from these buffers) bytes that would pass the upload's length. Blocking: run it on the
    /// thread pool.
    func append(_ buffers: [ByteBuffer]) throws {
        let incoming = buffers.reduce(Int64(0)) { $0 + Int64($1.readableBytes) }
        guard start + written + incoming <= length else { throw Self.tooLong(length) }
        // Every byte gets two hashes (this body's checksum, the whole file's running SHA-256):
        // a SHA checksum is computed on a second thread while this one writes and keeps the
        // running hash, so it costs no more time than a CRC.
        let work = AppendWork(body: bodyHasher, file: hash)
        let position = start + written
        let fd = self.fd, id = self.id
        // A CRC-32C keeps up with memory: a second thread would cost more than it saves.
        let parts = bodyHasher.algorithm == .crc32c ? 1 : 2
        if parts == 1 {
            for buffer in buffers { buffer.withUnsafeReadableBytes { work.body.update($0) } }
        }
        DispatchQueue.concurrentPerform(iterations: parts) { index in
            if index == 1 {
                for buffer in buffers { buffer.withUnsafeReadableBytes { work.body.update($0) } }
                return
            }
            var offset = position
            for buffer in buffers {
                do {
                    try buffer.withUnsafeReadableBytes { bytes in
                        var done = 0
                        while done < bytes.count {
                            let count = pwrite(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset + Int64(done)))
                            if count < 0 {
                                if errno == EINTR { continue }
                                throw StoreError.io(operation: "write", path: "resumable upload \(id)", reason: String(cString: strerror(errno)))
                            }
                            done += count
                        }
                        work.file.update(bytes)
                    }
                } catch {
                    work.failure = error
                    return
                }
                offset += Int64(buffer.readableBytes)
            }
        }
        if let failure = work.failure { throw failure }
        bodyHasher = work.body
        hash = work.file
        written += incoming
    }

    /// The checksum of this request's body so far.
    var bodyChecksum: UploadChecksum { bodyHasher.finalize() }

    static func tooLong(_ length: Int64) -> HTTPError {
        HTTPError(.badRequest, message: "the body goes past the upload's length of \(length) bytes — send only the rest of the file")
    }

    func sync() throws {
        guard fsync(fd) == 0 else {
            throw StoreError.io(operation: "sync", path: "resumable upload \(id)", reason: String(cString: strerror(errno)))
        }
    }

    /// Drops what this PATCH wrote.
    func truncateBack() throws {
        guard ftruncate(fd, off_t(start)) == 0 else {
            throw StoreError.io(operation: "truncate", path: "resumable upload \(id)", reason: String(cString: strerror(errno)))
        }
        written = 0
        try sync()
    }

    func close() {
        if isOpen {
            isOpen = false
            Glibc.close(fd)
        }
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let tusMaxSize = Self("Tus-Max-Size")!
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadExpires = Self("Upload-Expires")!
    static let uploadChecksum = Self("Upload-Checksum")!
}

extension ResumableUploads: ResumableUploadSource {}
