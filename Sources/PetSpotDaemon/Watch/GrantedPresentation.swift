import Synchronization

/// How one watcher may see fixes, shared by its deliveries (reads) and its
/// authorization re-checks (writes); `nil` once authorization is gone.
///
/// Grants change rarely (a reload, a revocation) and are read for every
/// watcher at every fix, so a delivery keeps its own copy and takes this
/// lock only after some grant in the process changed (``changeCount``):
/// the lock's object is otherwise one more cold cache line a watcher a fix
/// (issue 40).
final class GrantedPresentation: Sendable {
    /// How many times any grant in the process was set.
    private static let changes = Atomic<UInt64>(0)

    private let state: Mutex<FixPresentation?>

    init(_ presentation: FixPresentation) { state = Mutex(presentation) }

    var value: FixPresentation? { state.withLock { $0 } }

    /// Sets the presentation; a reader that then sees the new
    /// ``changeCount`` reads the new value.
    func set(_ presentation: FixPresentation?) {
        state.withLock { $0 = presentation }
        Self.changes.add(1, ordering: .releasing)
    }

    /// How many times any grant was set so far: a copy of ``value`` taken
    /// after reading a count is current while the count stays the same.
    static var changeCount: UInt64 { changes.load(ordering: .acquiring) }
}
