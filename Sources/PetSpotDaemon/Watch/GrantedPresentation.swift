import NIOConcurrencyHelpers

/// How one watcher may see fixes, shared by its deliveries (reads) and its
/// authorization re-checks (writes); `nil` once authorization is gone.
final class GrantedPresentation: Sendable {
    private let state: NIOLockedValueBox<FixPresentation?>

    init(_ presentation: FixPresentation) { state = NIOLockedValueBox(presentation) }

    var value: FixPresentation? { state.withLockedValue { $0 } }

    func set(_ presentation: FixPresentation?) { state.withLockedValue { $0 = presentation } }
}
