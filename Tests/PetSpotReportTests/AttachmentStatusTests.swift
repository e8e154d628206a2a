import Foundation
import PetSpotReport
import Testing

@Suite("Attachment status")
struct AttachmentStatusTests {
    static let draft = PhotoDraft(
        file: URL(fileURLWithPath: "/tmp/photo.png"), info: PhotoInfo(format: .png, width: 1, height: 1), byteCount: 33)

    @Test(arguments: [
        (AttachmentStatus.empty, AttachmentStatus.Event.startLoading, AttachmentStatus.loading as AttachmentStatus?),
        (.loading, .loaded(draft), .confirmed(draft)),
        (.loading, .failed(.unsupportedFormat), .empty),
        (.confirmed(draft), .remove, .empty),
        (.confirmed(draft), .reset, .empty),
        (.confirmed(draft), .startLoading, .loading),
        (.loading, .reset, .empty),
        (.empty, .reset, .empty),
        // Refused:
        (.empty, .loaded(draft), nil),
        (.empty, .failed(.empty), nil),
        (.empty, .remove, nil),
        (.loading, .startLoading, nil),
        (.loading, .remove, nil),
        (.confirmed(draft), .loaded(draft), nil),
        (.confirmed(draft), .failed(.empty), nil),
    ])
    func transition(from state: AttachmentStatus, event: AttachmentStatus.Event, to expected: AttachmentStatus?) {
        #expect(state.next(after: event) == expected)
        var machine = state
        #expect(machine.handle(event) == (expected != nil))
        #expect(machine == (expected ?? state))
    }
}
