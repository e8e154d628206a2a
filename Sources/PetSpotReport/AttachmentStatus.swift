/// The state of the photo step's attachment, as a state machine.
///
/// ```
/// empty ──startLoading──▶ loading ──loaded──▶ confirmed
///   ▲                       │                   │
///   └────────failed─────────┘                   │
///   └──────────────remove / reset───────────────┘
/// ```
///
/// `startLoading` from `confirmed` is a replacement (the cache deletes the
/// previous file first); `reset` empties from any state. Every other event
/// is refused and leaves the state unchanged.
public enum AttachmentStatus: Sendable, Hashable {
    /// No photo.
    case empty
    /// A photo is being read and cached.
    case loading
    /// A photo is cached.
    case confirmed(PhotoDraft)

    /// What can happen to the attachment.
    public enum Event: Sendable, Hashable {
        /// The user picked a file.
        case startLoading
        /// Caching succeeded.
        case loaded(PhotoDraft)
        /// Caching failed.
        case failed(PhotoDraftError)
        /// The user removed the photo.
        case remove
        /// The whole form was reset.
        case reset
    }

    /// The state after `event`, or `nil` when the event is not allowed now.
    public func next(after event: Event) -> AttachmentStatus? {
        switch (self, event) {
        case (.empty, .startLoading), (.confirmed, .startLoading): .loading
        case (.loading, .loaded(let draft)): .confirmed(draft)
        case (.loading, .failed): .empty
        case (.confirmed, .remove): .empty
        case (_, .reset): .empty
        default: nil
        }
    }

    /// Applies `event`.
    /// - Returns: whether the transition was allowed (when not, the state is unchanged).
    @discardableResult
    public mutating func handle(_ event: Event) -> Bool {
        guard let next = next(after: event) else { return false }
        self = next
        return true
    }

    /// The cached photo when confirmed.
    public var draft: PhotoDraft? {
        if case .confirmed(let draft) = self { return draft }
        return nil
    }
}
