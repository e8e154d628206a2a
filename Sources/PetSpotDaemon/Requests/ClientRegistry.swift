import Synchronization

/// Counts connected clients and their watches, enforcing `max_clients`, each
/// uid's share of it (`max_clients_per_uid`) and the slots kept for prompt
/// agents, so one local user can never lock out the others or the kiosk's UI.
public actor ClientRegistry {
    /// Most simultaneous clients.
    public nonisolated let capacity: Int
    /// Most simultaneous clients of one uid (prompt agents excepted).
    public nonisolated let perUid: Int
    /// Slots of ``capacity`` only prompt agents may take.
    public nonisolated let reserved: Int
    public private(set) var clients = 0
    private var byUid: [UInt32: Int] = [:]
    /// Watches open now (counted without the actor: a watch can end in a
    /// synchronous handler, see ``ClientSession/activate(_:start:onEnd:)``).
    public nonisolated var watchers: Int { watchCount.load(ordering: .relaxed) }
    private nonisolated let watchCount = Atomic<Int>(0)
    private var nextConnection: UInt64 = 0

    /// Why a client was not admitted.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// `max_clients` reached (less the slots kept for prompt agents).
        case full
        /// The client's uid holds its whole share already.
        case uidShare(Int)

        public var description: String {
            switch self {
            case .full: "max_clients reached"
            case .uidShare(let share): "this uid already holds max_clients_per_uid (\(share)) connections"
            }
        }
    }

    /// Creates a registry.
    /// - Parameters:
    ///   - capacity: `max_clients`.
    ///   - perUid: `max_clients_per_uid`; `nil`: no per-uid bound.
    ///   - reserved: slots of `capacity` kept for prompt agents.
    public init(capacity: Int, perUid: Int? = nil, reserved: Int = 0) {
        self.capacity = capacity
        self.perUid = perUid ?? capacity
        self.reserved = min(max(0, reserved), max(0, capacity - 1))
    }

    /// Admits a new client of `uid`. A client that may be the prompt agent
    /// (`agentCandidate`) is not held to the per-uid share and may take the
    /// reserved slots; anyone else is refused when its uid holds its share,
    /// or when only reserved slots are left.
    public func admit(uid: UInt32, agentCandidate: Bool = false) -> Result<ConnectionID, Refusal> {
        if agentCandidate {
            guard clients < capacity else { return .failure(.full) }
        } else {
            guard clients < capacity - reserved else { return .failure(.full) }
            guard byUid[uid, default: 0] < perUid else { return .failure(.uidShare(perUid)) }
        }
        clients += 1
        byUid[uid, default: 0] += 1
        nextConnection += 1
        return .success(ConnectionID(nextConnection))
    }

    /// A client of `uid` left.
    public func release(uid: UInt32) {
        clients -= 1
        let left = byUid[uid, default: 1] - 1
        byUid[uid] = left > 0 ? left : nil
    }

    /// Connections `uid` holds now.
    public func connections(of uid: UInt32) -> Int { byUid[uid, default: 0] }

    /// A watch started.
    public nonisolated func watchStarted() { watchCount.add(1, ordering: .relaxed) }

    /// A watch ended.
    public nonisolated func watchEnded() { watchCount.subtract(1, ordering: .relaxed) }
}
