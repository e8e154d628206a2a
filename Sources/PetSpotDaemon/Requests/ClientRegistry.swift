import Synchronization

/// Counts connected clients and their watches, enforcing `max_clients`, each
/// uid's share of it (`max_clients_per_uid`) and the slots kept for prompt
/// agents, so one local user can never lock out the others or the kiosk's UI.
///
/// A class over one `Mutex`, not an actor: admitting and releasing are a few
/// counters changed together, and nothing waits (docs/ARCHITECTURE.md,
/// "Concurrency", rule 2).
public final class ClientRegistry: Sendable {
    /// Most simultaneous clients.
    public let capacity: Int
    /// Most simultaneous clients of one uid (prompt agents excepted).
    public let perUid: Int
    /// Slots of ``capacity`` only prompt agents may take.
    public let reserved: Int
    /// Clients connected now.
    public var clients: Int { counts.withLock { $0.clients } }
    /// Watches open now (an atomic of its own: a watch can end in a
    /// synchronous handler, see ``ClientSession/activate(_:start:onEnd:)``).
    public var watchers: Int { watchCount.load(ordering: .relaxed) }
    private let watchCount = Atomic<Int>(0)
    private let counts = Mutex(Counts())

    private struct Counts {
        var clients = 0
        var byUid: [UInt32: Int] = [:]
        var nextConnection: UInt64 = 0
    }

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
        let (capacity, reserved, perUid) = (self.capacity, self.reserved, self.perUid)
        return counts.withLock { counts in
            if agentCandidate {
                guard counts.clients < capacity else { return .failure(.full) }
            } else {
                guard counts.clients < capacity - reserved else { return .failure(.full) }
                guard counts.byUid[uid, default: 0] < perUid else { return .failure(.uidShare(perUid)) }
            }
            counts.clients += 1
            counts.byUid[uid, default: 0] += 1
            counts.nextConnection += 1
            return .success(ConnectionID(counts.nextConnection))
        }
    }

    /// A client of `uid` left.
    public func release(uid: UInt32) {
        counts.withLock { counts in
            counts.clients -= 1
            let left = counts.byUid[uid, default: 1] - 1
            counts.byUid[uid] = left > 0 ? left : nil
        }
    }

    /// Connections `uid` holds now.
    public func connections(of uid: UInt32) -> Int { counts.withLock { $0.byUid[uid, default: 0] } }

    /// A watch started.
    public func watchStarted() { watchCount.add(1, ordering: .relaxed) }

    /// A watch ended.
    public func watchEnded() { watchCount.subtract(1, ordering: .relaxed) }
}
