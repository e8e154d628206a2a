import Foundation
import Logging
import Metrics
import MetricsTestKit
import NIOPosix
@testable import PetSpotDaemon
import PetSpotFixHub
import PetSpotJSON
import PetSpotLinux
import PetSpotLocation
import PetSpotPOSIX
import PetSpotPolicy
import PetSpotProtocol
import PetSpotStaticSource
import Synchronization
import TestSupport
import Testing

/// `location.get` answered at once on the event loop
/// (``Dispatcher/locationGetAtOnce(_:session:reusing:)``) gives exactly what
/// the full path gives, judged by the policy's synchronous grant once for
/// every request: from a client's first request on, a refusal too, and a
/// change (reload, reset, decision) is seen by the very next one.
@Suite struct LocationGetAtOnceTests {
    static let alice = ClientIdentity(uid: 1000, gid: 1000, pid: 20, user: "alice", groups: ["alice"])
    static let root = ClientIdentity(uid: 0, gid: 0, pid: 10, user: "root", groups: ["root"])
    static let position = try! StaticPosition(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 30)

    struct Setup {
        let directory: TemporaryDirectory
        let engine: PolicyEngine
        let dispatcher: Dispatcher
        let session: ClientSession
        let auditPath: String

        init(
            policy: Policy, hub: any PositionSource = StaticFixProducer(position: position).makePosition(),
            port: (any AccessPolicy)? = nil, metrics: any MetricsFactory = MetricsSystem.factory,
            pages: QuietPageRelease? = nil
        ) throws {
            directory = try TemporaryDirectory()
            auditPath = directory.file("audit.jsonl")
            let logger = Logger(label: "test")
            engine = PolicyEngine(policy: policy, stateDirectory: directory.path, logger: logger)
            dispatcher = Dispatcher(
                hub: hub, policy: port ?? engine, registry: ClientRegistry(capacity: 8), logger: logger,
                fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub),
                audit: AuditLog(path: auditPath, maxBytes: 1 << 20, logger: logger), pages: pages, metrics: metrics)
            session = ClientSession(id: ConnectionID(1), identity: alice)
        }

        /// The long way's answer to `line` (never at once), its audit record
        /// written first as the connection's queue writes it.
        func handle(_ line: String) async -> JSONValue? {
            let reply: Reply
            switch InboundLine.decode(Array(line.utf8)) {
            case .locationGet(let get): reply = await dispatcher.locationGet(get, session: session)
            case .other(let inbound): reply = await dispatcher.handle(inbound, session: session)
            }
            return try? written(reply)
        }

        /// The answer to `line` as a connection gets it (``Dispatcher/answer(_:session:reusing:)``:
        /// at once when it can be), parsed, its audit record written first.
        func next(_ line: String) async -> JSONValue? {
            try? written(await dispatcher.reply(to: Array(line.utf8), session: session))
        }

        /// The answer given at once to `line` (a fix or a refusal), parsed,
        /// its audit record written first as the connection's queue writes
        /// it; `nil` when it must wait for a fix, or is no well-formed `location.get`.
        func atOnce(_ line: String) throws -> JSONValue? {
            guard case .locationGet(let get) = InboundLine.decode(Array(line.utf8)),
                case .now(let reply) = dispatcher.locationGetAtOnce(get, session: session, reusing: nil)
            else { return nil }
            return try written(reply)
        }

        private func written(_ reply: Reply) throws -> JSONValue? {
            var records = AuditLines()
            if let record = reply.record { records.append(record) }
            dispatcher.audit?.append(records)
            guard let bytes = reply.text.map({ Array($0.utf8) }) else { return nil }
            #expect(bytes.last == UInt8(ascii: "\n"))
            return try JSONValue.parse(bytes: bytes.dropLast())
        }

        var auditLines: [String] {
            ((try? String(contentsOfFile: auditPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// Every line a client sends puts off the release of the request
    /// path's pages (``QuietPageRelease``): one answered at once, one that
    /// does not parse, one answered later. With no line, no timer is set.
    @Test func everyLineMarksActivityForThePageRelease() async throws {
        let scheduled = Mutex<[@Sendable () -> Void]>([])
        let releases = Mutex(0)
        let pages = QuietPageRelease(
            after: .seconds(60), timer: { _, work in scheduled.withLock { $0.append(work) } },
            release: {
                releases.withLock { $0 += 1 }
                return StartupPages.Released()
            })
        let setup = try Setup(policy: Policy(defaultStatus: .authorized), pages: pages)
        func fire() {
            let work = scheduled.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            #expect(work != nil, "no timer was set")
            work?()
        }
        #expect(scheduled.withLock { $0.count } == 0)
        for line in [Self.get, "{not json", #"{"jsonrpc":"2.0","id":8,"method":"daemon.status"}"#] {
            _ = await setup.next(line)
            #expect(scheduled.withLock { $0.count } == 1)
            // The period that saw the line passes without a release.
            fire()
            #expect(releases.withLock { $0 } == 0)
        }
        fire()
        #expect(releases.withLock { $0 } == 1)
        #expect(scheduled.withLock { $0.count } == 0)
    }

    static let get = #"{"jsonrpc":"2.0","id":7,"method":"location.get"}"#

    @Test func answersTheFirstRequestAtOnceAsTheFullPathDoes() async throws {
        let setup = try Setup(policy: Policy(defaultStatus: .authorized))
        defer { setup.directory.remove() }
        // Nothing decided or kept beforehand: the grant is judged for this request.
        let quick = try #require(try setup.atOnce(Self.get))
        let full = try #require(await setup.handle(Self.get))
        // Same shape; the static fix is stamped at each answer, so compare without the timestamp.
        func withoutTime(_ value: JSONValue) -> JSONValue {
            guard case .object(var members) = value, case .object(var fix)? = members["result"] else { return value }
            fix["timestamp"] = nil
            fix["age"] = nil
            members["result"] = .object(fix)
            return .object(members)
        }
        #expect(withoutTime(quick) == withoutTime(full))
        #expect(quick["id"] == .number(7))
        // Both answers are audited, the same way.
        let lines = setup.auditLines
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains(#""method":"location.get""#) && $0.contains(#""status":"authorized""#) })
        #expect(lines.allSatisfy { $0.contains(#""source":"static""#) && !$0.contains("52.2297") })
    }

    @Test func aResetIsSeenByTheVeryNextRequest() async throws {
        let setup = try Setup(policy: Policy(prompt: .allow, admin: PrincipalSet(users: ["root"])))
        defer { setup.directory.remove() }
        _ = try await setup.engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        _ = try #require(await setup.handle(Self.get))
        #expect(try setup.atOnce(Self.get) != nil)

        try await setup.engine.reset(uid: Self.alice.uid, by: Self.root)
        #expect(try setup.atOnce(Self.get)?["error"]?["code"] == .number(-32001))
        let refused = try #require(await setup.handle(Self.get))
        #expect(refused["error"]?["code"] == .number(-32001))
    }

    @Test func anotherConnectionLeavingChangesNothing() async throws {
        let setup = try Setup(policy: Policy(defaultStatus: .authorized))
        defer { setup.directory.remove() }
        _ = try #require(await setup.handle(Self.get))
        await setup.engine.connectionClosed(ConnectionID(99))
        #expect(try setup.atOnce(Self.get) != nil)
    }

    @Test func aReloadIsSeenByTheVeryNextRequest() async throws {
        let setup = try Setup(policy: Policy(defaultStatus: .authorized))
        defer { setup.directory.remove() }
        _ = try #require(await setup.handle(Self.get))
        #expect(try setup.atOnce(Self.get) != nil)

        await setup.engine.update(policy: Policy(defaultStatus: .denied))
        #expect(try setup.atOnce(Self.get)?["error"]?["code"] == .number(-32002))
        #expect(try #require(await setup.handle(Self.get))["error"]?["code"] == .number(-32002))
    }

    /// On an open connection (its session, through ``Dispatcher/answer(_:session:reusing:)``
    /// as the connection handler calls it): each change is seen by the next `location.get`.
    @Test func aDecisionAReloadAndAResetAreSeenByTheNextGetOnAnOpenConnection() async throws {
        let setup = try Setup(policy: Policy(prompt: .allow, admin: PrincipalSet(users: ["root"])))
        defer { setup.directory.remove() }
        #expect(try #require(await setup.next(Self.get))["error"]?["code"] == .number(-32001))
        // A decision (another request of the same connection).
        _ = try await setup.engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .full)
        #expect(try setup.atOnce(Self.get) != nil)
        #expect(try #require(await setup.next(Self.get))["result"]?["accuracy"] == "full")
        // A reload that reduces her.
        await setup.engine.update(
            policy: Policy(
                prompt: .allow, admin: PrincipalSet(users: ["root"]),
                rules: [PolicyRule(user: "alice", status: .authorized, accuracy: .reduced)]))
        #expect(try #require(await setup.next(Self.get))["result"]?["accuracy"] == "reduced")
        // A reload back, then a reset.
        await setup.engine.update(policy: Policy(prompt: .allow, admin: PrincipalSet(users: ["root"])))
        #expect(try #require(await setup.next(Self.get))["result"]?["accuracy"] == "full")
        try await setup.engine.reset(uid: Self.alice.uid, by: Self.root)
        #expect(try #require(await setup.next(Self.get))["error"]?["code"] == .number(-32001))
    }

    /// The port keeps nothing beside the grant (no generation, no kept
    /// grant): a policy whose answer changes between two requests is asked
    /// once per request, and the second request gets the second answer.
    @Test func everyGetAsksThePortOnceAndSeesItsAnswerNow() async throws {
        let port = SwitchablePolicy()
        let setup = try Setup(policy: Policy(), port: port)
        defer { setup.directory.remove() }
        #expect(try setup.atOnce(Self.get) != nil)
        #expect(port.grants == 1)
        port.status = .denied
        #expect(try setup.atOnce(Self.get)?["error"]?["code"] == .number(-32002))
        #expect(port.grants == 2)
        #expect(try #require(await setup.handle(Self.get))["error"]?["code"] == .number(-32002))
        port.status = .authorized
        #expect(try #require(await setup.next(Self.get))["result"] != nil)
    }

    /// A refusal needs no wait: it is answered at once, judged once (one
    /// grant asked, one authorization counted), and recorded once.
    @Test func aRefusalIsAnsweredAtOnceJudgedOnce() async throws {
        let port = SwitchablePolicy()
        port.status = .denied
        let metrics = TestMetrics()
        let setup = try Setup(policy: Policy(), port: port, metrics: metrics)
        defer { setup.directory.remove() }
        let refused = try #require(await setup.next(Self.get))
        #expect(refused["error"]?["code"] == .number(-32002))
        #expect(port.grants == 1)
        #expect(try metrics.expectCounter("petspot_authorizations_total", [("status", "denied")]).totalValue == 1)
        let lines = setup.auditLines
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""status":"denied""#) == true)
    }

    @Test func reducedAccuracyIsShownAsTheFullPathShowsIt() async throws {
        let setup = try Setup(policy: Policy(prompt: .allow, reducedAccuracyMeters: 3000))
        defer { setup.directory.remove() }
        _ = try await setup.engine.request(for: Self.alice, connection: ConnectionID(1), accuracy: .reduced)
        let full = try #require(await setup.handle(Self.get))
        let quick = try #require(try setup.atOnce(Self.get))
        #expect(full["result"]?["accuracy"] == "reduced")
        #expect(quick["result"]?["accuracy"] == "reduced")
        #expect(quick["result"]?["latitude"] == full["result"]?["latitude"])
        #expect(quick["result"]?["longitude"] == full["result"]?["longitude"])
        #expect(quick["result"]?["horizontalAccuracy"] == full["result"]?["horizontalAccuracy"])
        #expect(quick["result"]?["latitude"] != .number(52.2297))
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","method":"location.get"}"#,  // a notification gets no answer
        // bad params: the error says which
        #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":-1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"minMode":3}}"#,  // the static fix is 2D
        #"[{"jsonrpc":"2.0","id":1,"method":"location.get"}]"#,  // a batch gets an array
        #"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"location.get""#,  // broken JSON
    ])
    func everythingElseGoesTheFullWay(line: String) async throws {
        let setup = try Setup(policy: Policy(defaultStatus: .authorized))
        defer { setup.directory.remove() }
        _ = try #require(await setup.handle(Self.get))
        #expect(try setup.atOnce(line) == nil)
    }

    @Test func aStreamingSourceAnswersAtOnceOnlyFromAFreshEnoughFix() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let setup = try Setup(policy: Policy(defaultStatus: .authorized), hub: hub)
        defer { setup.directory.remove() }
        let received = ContinuousClock.now - .seconds(3)
        hub.receive(.connected(device: nil))
        hub.receive(
            .fix(
                LocationFix(
                    coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .gpsd,
                    receivedAt: received)))
        _ = try #require(await setup.handle(Self.get))
        #expect(try setup.atOnce(#"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"maxAge":10}}"#) != nil)
        // Older than maxAge: the full path decides (it waits for a newer fix).
        #expect(try setup.atOnce(#"{"jsonrpc":"2.0","id":2,"method":"location.get","params":{"maxAge":1}}"#) == nil)
    }
}

/// A policy whose answer a test switches: it implements the whole
/// authorization port (grant, request, reset, connection closed, changes,
/// decisions' status) and the prompt-agent port, and nothing more.
final class SwitchablePolicy: AccessPolicy {
    private let state = Mutex((status: AuthorizationStatus.authorized, grants: 0))

    /// What every grant answers now.
    var status: AuthorizationStatus {
        get { state.withLock { $0.status } }
        set { state.withLock { $0.status = newValue } }
    }

    /// Grants asked for so far.
    var grants: Int { state.withLock { $0.grants } }

    func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
        let status = state.withLock { state in
            state.grants += 1
            return state.status
        }
        let authorized = status == .authorized
        return AccessGrant(
            state: AuthorizationState(
                status: status, accuracy: authorized ? .full : nil, decidedBy: .default, client: client),
            presentation: authorized ? .full : nil)
    }

    func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState {
        grant(for: client, connection: connection).state
    }

    func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) { throw .forbidden }
    func connectionClosed(_ connection: ConnectionID) async {}
    func authorizationChanges() -> AsyncStream<Void> { AsyncStream { _ in } }
    func decisionsStatus() -> JSONValue? { nil }

    func registerAgent(
        _ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink
    ) async throws(LocationError) { throw .forbidden }
    func received(_ response: RPCResponse, connection: ConnectionID) async {}
    func mayBePromptAgent(_ client: ClientIdentity) async -> Bool { false }
}
