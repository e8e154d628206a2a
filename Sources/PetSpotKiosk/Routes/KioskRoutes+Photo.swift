import FoundationEssentials
import Hummingbird
import Logging
import NIOPosix
import PetSpotKioskConfiguration
import PetSpotPhotoCleaning
import PetSpotReport

/// Step 1: the photo (upload, remove, continue, preview).
extension KioskRoutes {
    // MARK: Step 1: photo

    func photoPage(_ context: KioskRequestContext) async -> Response {
        await stepPage(context, step: .photo) { builder.photo($0, remaining: $1) }
    }

    func uploadPhoto(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.flow.step == .photo else { return await redirectToStep(context) }
        // The language buttons submit this form: a file picked with them goes up, and the page comes back in
        // the language chosen.
        let switchTo = context.form.flatMap { KioskSettings.Language(rawValue: $0["lang"]) }
        if let switchTo { store.update(visit.id) { $0.language = switchTo } }
        let t = KioskStrings.of(switchTo ?? visit.language)
        guard !context.uploadTooLarge else {
            store.update(visit.id) {
                $0.notice = Notice(photoProblem: t.photoTooLargeFormat.filling(KioskLimits.photoBytes >> 20))
            }
            return redirect("/report/photo")
        }
        guard let file = context.form?.file, !file.data.isEmpty || !file.fileName.isEmpty else {
            // Nothing picked (the picker closed without a photo): seed 002's helper, not an error.
            if switchTo == nil { store.update(visit.id) { $0.notice = Notice(pickerCancelled: true) } }
            return redirect("/report/photo")
        }
        // Cleaning (metadata out, orientation into the pixels, HEIC to JPEG) can take a second for a large
        // photo: it runs on NIO's blocking pool (a fixed number of threads, so uploads also queue there
        // rather than all decoding at once), never on an event loop or the shared cooperative pool.
        let drafts = visit.drafts
        let data = file.data
        let result: Result<PhotoDraft, PhotoDraftError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive {
                Result<PhotoDraft, PhotoDraftError> { () throws(PhotoDraftError) in try drafts.store(data) }
            }
        } catch {
            result = .failure(.writeFailed("the photo pool is shutting down: \(error)"))
        }
        let fileName = Self.displayName(file.fileName)
        let open = store.update(visit.id) { visit in
            visit.flow.attachment.handle(.startLoading)
            switch result {
            case .success(let draft):
                visit.flow.attachment.handle(.loaded(draft))
                visit.photoFileName = fileName
            case .failure(let error):
                visit.flow.attachment.handle(.failed(error))
                visit.photoFileName = nil
                visit.notice = Notice(photoProblem: Self.photoMessage(error, t))
            }
            return true
        }
        if case .failure(let error) = result, case .writeFailed(let detail) = error {
            logger.error("photo draft: \(detail)")
        }
        // The visit ended while the photo was written: leave nothing behind.
        if open == nil { try? visit.drafts.clear() }
        return redirect("/report/photo")
    }

    func removePhoto(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit else { return redirect("/") }
        // The file goes first, outside the store's lock; the visit then forgets it.
        try? visit.drafts.clear()
        store.update(visit.id) { visit in
            visit.flow.attachment.handle(.remove)
            visit.photoFileName = nil
        }
        return redirect("/report/photo")
    }

    func photoContinue(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.flow.step == .photo else { return await redirectToStep(context) }
        let today = dependencies.today()
        let moved = store.update(visit.id) { visit in
            // Seed 000: a draft counts only while its file exists (`continue` checks, and forgets a vanished one).
            let errors = visit.flow.continue(today: today)
            if visit.flow.attachment.draft == nil { visit.photoFileName = nil }
            if !errors.isEmpty { visit.notice = Notice(errors: errors) }
            return visit
        }
        return redirect(moved.map(Self.path(of:)) ?? "/")
    }

    func photoPreview(_ context: KioskRequestContext) async -> Response {
        guard let draft = context.visit?.flow.attachment.draft, let data = try? Data(contentsOf: draft.file) else {
            return Response(status: .notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: draft.info.format.mimeType],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The file name to show: its last path component, printable, at most 80 characters.
    static func displayName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let printable = String(
            String.UnicodeScalarView(
                last.unicodeScalars.filter {
                    // Foundation's controlCharacters: the Cc and Cf categories.
                    ![.control, .format].contains($0.properties.generalCategory)
                }))
        return printable.isEmpty ? "photo" : String(printable.prefix(80))
    }

    static func photoMessage(_ error: PhotoDraftError, _ t: KioskStrings) -> String {
        switch error {
        case .unsupportedFormat: t.photoUnsupported
        case .empty: t.photoEmpty
        case .tooLarge: t.photoTooLargeFormat.filling(KioskLimits.photoBytes >> 20)
        case .tooManyPixels(let limit): t.photoTooManyPixelsFormat.filling(limit / 1_000_000)
        case .damaged: t.photoDamaged
        case .rotationNotSupported: t.photoRotated
        // A full disk: trying again cannot help (SPEC §7), so the visitor is told to ask staff.
        case .lowDiskSpace: t.photoStorageFull
        default: t.photoSaveFailed
        }
    }
}
