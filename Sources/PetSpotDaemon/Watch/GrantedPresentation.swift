import Synchronization

/// How one watcher may see fixes, shared by its deliveries (reads) and its
/// authorization re-checks (writes); `nil` once authorization is gone.
final class GrantedPresentation: Sendable {
    private let state: Mutex<FixPresentation?>

    init(_ presentation: FixPresentation) { state = Mutex(presentation) }

    var value: FixPresentation? { state.withLock { $0 } }

    func set(_ presentation: FixPresentation?) { state.withLock { $0 = presentation } }
}
