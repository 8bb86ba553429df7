import Foundation

/// Media of a form: attaching (streamed, named as the seed names them), listing, detaching.
extension Workflow {
    /// Copies files into the form's folder as the question's media (`Qid1(3).mp4`), streaming,
    /// and records each one only once it is complete and synced. A question whose answer is its
    /// files (a photo question) takes only files of its kind, up to its `maxFiles`. `value`
    /// (the code read from the photo of a barcode) is checked first and saved with the first file.
    /// A value, or files that are the answer, need the template's consent, like any answer
    /// (`acceptingConsent` records it with them), and files that are the answer a question
    /// that is relevant.
    public func attach(_ reference: String, question questionReference: String, files: [URL],
                       value: AnswerUpdate.Input? = nil, acceptingConsent: Bool = false) throws -> [MediaFile] {
        let (location, original) = try openForChange(reference)
        var grown = original
        let slot = try Self.slot(questionReference, in: &grown, adding: true, now: now())
        let question = slot.question
        let rules = Self.rules(for: slot, in: original)
        try rules.checkTakesAnswer()
        // Files that are the answer are an answer: a question that is not relevant takes none.
        if question.type.answerMedia != nil, original.template.hasLogic,
           !FormLogic(template: original.template).isRelevant(slot, in: grown, now: now()) {
            throw rules.refuse("the question is not relevant now (\(question.logic.relevant?.text ?? "")), so it takes no answer")
        }
        // Every file is checked before the first is copied, so a mistyped name attaches nothing.
        var isFolder: ObjCBool = false
        for file in files where !FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) || isFolder.boolValue {
            throw WorkflowError.noSuchFile(file.path)
        }
        try question.type.checkMedia(original.answer(for: slot.key).media + files.map(\.lastPathComponent), rules: rules)
        let kinds = try files.map(MediaKind.of)
        var form = grown
        if grown.repeats != original.repeats, form.template.hasLogic {
            // The file is the first thing in a new instance: its calculations and defaults as any answer's.
            try Self.checkLogic(of: [], in: &form, now: now(), structural: true)
        }
        if acceptingConsent { form.acceptConsent(by: actor.name, at: now()) }
        if value != nil || question.type.answerMedia != nil { try Self.checkConsent(form, name: location.name) }
        if let value {
            let changed = try Self.apply([AnswerUpdate(question: slot.key, value: value)], to: &form)
            form.record(AuditEvent(at: now(), by: actor.name, action: .answered, questions: changed))
        }
        var attached: [MediaFile] = []
        for (file, kind) in zip(files, kinds) {
            let name = try MediaNaming.nextName(questionIndex: slot.index, instance: slot.instance, extension: file.pathExtension.lowercased(),
                                                form: form, folder: location.folder)
            let (temporary, bytes) = try DurableFile.streamCopy(from: file, into: location.folder)
            do {
                try DurableFile.moveNoReplace(temporary, to: location.folder.appendingPathComponent(name))
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            var answer = form.answer(for: slot.key)
            answer.media.append(name)
            form.answers[slot.key] = answer
            form.record(AuditEvent(at: now(), by: actor.name, action: .attached, questions: [slot.key], media: name))
            try store.save(form, at: location)
            attached.append(MediaFile(name: name, questionID: slot.key, kind: kind, bytes: bytes))
        }
        return attached
    }

    /// The media of a form with their sizes on disk.
    public func media(of form: Form, at location: FormLocation) -> [MediaFile] {
        form.slots.flatMap { slot in
            form.answer(for: slot.key).media.map { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: location.folder.appendingPathComponent(name).path))?[.size] as? NSNumber
                return MediaFile(name: name, questionID: slot.key,
                                 kind: MediaKind(extension: (name as NSString).pathExtension) ?? .photo,
                                 bytes: size?.int64Value, missing: size == nil)
            }
        }
    }

    /// Removes one media file: first from form.json, then from disk.
    public func detach(_ reference: String, media name: String) throws -> Form {
        let (location, original) = try openForChange(reference)
        guard let questionID = original.answers.first(where: { $0.value.media.contains(name) })?.key else {
            throw WorkflowError.noSuchMedia(form: location.name, media: name,
                                            available: original.answers.values.flatMap(\.media).sorted())
        }
        var form = original
        form.answers[questionID]?.media.removeAll { $0 == name }
        form.record(AuditEvent(at: now(), by: actor.name, action: .detached, questions: [questionID], media: name))
        try store.save(form, at: location)
        let file = location.folder.appendingPathComponent(try SafeName.check(name, as: "media name"))
        try? FileManager.default.removeItem(at: file)
        try? DurableFile.syncFolder(location.folder)
        return form
    }
}
