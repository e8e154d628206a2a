import Glibc
import Foundation
import Synchronization
import Testing
import TestSupport

/// Memory per connection and per request, over thousands of them (issue
/// 41): a station's daemon lives for weeks, and every client that comes and
/// goes (the kiosk, a monitoring check, `petspot-location get`) must leave
/// nothing behind. Each connection once kept its handler and session alive
/// for good (a reference cycle between them): about 4 KB per connection,
/// never given back, which no test saw because every hostile test kept its
/// connections open or measured memory at rest over a few hundred.
///
/// Measured as the allocator counts it (`daemon.status` `memory.heapInUse`:
/// glibc's `mallinfo2`, independent of pages and arenas) and as the kernel
/// does (`VmRSS`), after a warm-up, once the daemon's count of live
/// connection objects (`memory.connectionHandlers`, `clientSessions`) is back
/// to the one connection asking.
@Suite(.serialized) struct ConnectionMemoryTests {
    /// Connections per pattern, as issue 41 measured them.
    static let connections = 20_000
    static let warmUp = 2_000
    /// Each pattern's warm-up before it is measured: as many connections as
    /// the measurement. A pattern whose clients leave faster than the daemon
    /// notices (`getAndCloseBeforeTheAnswer`) holds up to a backlog's worth
    /// of connections at its peak, and the allocator keeps that high-water
    /// (one run grew 1.3 MiB, another 5.2 MiB, after a 2,000-connection
    /// warm-up, and neither grew again); the measured round then starts from
    /// that peak, and what it adds is what each connection keeps.
    static let patternWarmUp = connections
    /// Allocator bytes a connection may leave behind (over 20,000: 1.25 MiB in all).
    static let heapBytesPerConnection = 64
    /// Resident bytes a connection may leave behind.
    static let residentBytesPerConnection = 256

    /// A fix every half second: `location.get` with the default maxAge is
    /// answered from the cache, one with `maxAge` 0 waits for the next fix.
    static let halfSecondFixes = """
        {"loop": true, "steps": [
          {"fix": {"latitude": 52.2301, "longitude": 21.0101, "horizontalAccuracy": 5, "mode": 2}},
          {"wait": 0.5}
        ]}
        """

    static let policy = """
        [policy]
        prompt = "deny"
        [[policy.rules]]
        uid = \(getuid())
        status = "authorized"
        """

    /// What one client does on one connection before it closes.
    enum Pattern: String, CaseIterable, Sendable {
        case connectAndClose
        case getAndReadTheAnswer
        case getAndCloseBeforeTheAnswer
        case halfALine
        case garbage
        case watchAndClose
        case authorizationStatus

        func run(on socket: RawSocket) throws {
            switch self {
            case .connectAndClose:
                break
            case .getAndReadTheAnswer:
                try socket.send(#"{"jsonrpc":"2.0","id":1,"method":"location.get"}"# + "\n")
                _ = try socket.readLine(timeout: 60)
            case .getAndCloseBeforeTheAnswer:
                try socket.send(#"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"maxAge":0}}"# + "\n")
            case .halfALine:
                try socket.send(#"{"jsonrpc":"2.0","id":1,"met"#)
            case .garbage:
                try socket.send("\u{1}garbage}}{\n")
            case .watchAndClose:
                try socket.send(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"# + "\n")
                _ = try socket.readLine(timeout: 60)
            case .authorizationStatus:
                try socket.send(#"{"jsonrpc":"2.0","id":1,"method":"authorization.status"}"# + "\n")
                _ = try socket.readLine(timeout: 60)
            }
        }
    }

    /// The daemon's `memory` figures, asked on a connection of their own.
    struct Memory {
        var heapInUse: Int
        var handlers: Int
        var sessions: Int
    }

    static func memory(_ daemon: PolicyDaemon) throws -> Memory {
        let socket = try daemon.connect()
        let status = try socket.call("daemon.status")
        let memory = (status["result"] as? [String: Any])?["memory"] as? [String: Any]
        guard let heap = memory?["heapInUse"] as? Int, let handlers = memory?["connectionHandlers"] as? Int,
            let sessions = memory?["clientSessions"] as? Int
        else { throw PolicyTestError("daemon.status has no memory figures: \(status)") }
        return Memory(heapInUse: heap, handlers: handlers, sessions: sessions)
    }

    /// The figures once every connection but the asking one is gone (the
    /// daemon notices a close on its event loop, after the client's `close`).
    static func settled(_ daemon: PolicyDaemon) async throws -> Memory {
        var last: Memory?
        let settled = await eventually(every: .milliseconds(20)) {
            last = try? memory(daemon)
            return last.map { $0.handlers == 1 && $0.sessions == 1 } ?? false
        }
        guard settled, let last else {
            throw PolicyTestError(
                "connection objects still alive after every client left: \(String(describing: last))")
        }
        return last
    }

    static func open(_ daemon: PolicyDaemon, _ count: Int, _ pattern: Pattern) throws {
        for _ in 0..<count { try pattern.run(on: try daemon.connect()) }
    }

    /// Every pattern of issue 41's table, 20,000 connections each after a
    /// warm-up: at most 64 bytes per connection by the allocator's count,
    /// 256 in resident memory, and no connection object left alive.
    @Test func connectionsLeaveNothingBehind() async throws {
        let daemon = try PolicyDaemon(policy: Self.policy, scenario: Self.halfSecondFixes)
        defer { daemon.finish() }
        try daemon.start()
        for pattern in Pattern.allCases {
            try Self.open(daemon, Self.patternWarmUp, pattern)
            // Connections that close without reading (`connectAndClose`) flood
            // the daemon faster than it notices their ends; until it has, they
            // hold the test uid's share of `max_clients` (64), and the next
            // pattern's first client would be refused (the storm test covers
            // that case). The measured patterns below wait the same way.
            _ = try await Self.settled(daemon)
        }
        for pattern in Pattern.allCases {
            let before = try await Self.settled(daemon)
            let residentBefore = try #require(daemon.residentKiB)
            try Self.open(daemon, Self.connections, pattern)
            let after = try await Self.settled(daemon)
            let residentAfter = try #require(daemon.residentKiB)
            let heapPerConnection = Double(after.heapInUse - before.heapInUse) / Double(Self.connections)
            let residentPerConnection = Double((residentAfter - residentBefore) * 1024) / Double(Self.connections)
            print(
                "\(pattern): heap \(before.heapInUse) -> \(after.heapInUse) B (\(heapPerConnection) B per connection), "
                    + "RSS \(residentBefore) -> \(residentAfter) KiB (\(residentPerConnection) B per connection)")
            #expect(heapPerConnection <= Double(Self.heapBytesPerConnection), "\(pattern)")
            #expect(residentPerConnection <= Double(Self.residentBytesPerConnection), "\(pattern)")
        }
    }

    /// One connection, 20,000 `location.get`: nothing kept per request.
    @Test func requestsOnOneConnectionLeaveNothingBehind() async throws {
        let daemon = try PolicyDaemon(policy: Self.policy, scenario: Self.halfSecondFixes)
        defer { daemon.finish() }
        try daemon.start()
        let request = #"{"jsonrpc":"2.0","id":1,"method":"location.get"}"# + "\n"
        func ask(_ count: Int) throws {
            let socket = try daemon.connect()
            for _ in 0..<count {
                try socket.send(request)
                _ = try socket.readLine(timeout: 60)
            }
        }
        try ask(Self.warmUp)
        let before = try await Self.settled(daemon)
        let residentBefore = try #require(daemon.residentKiB)
        try ask(Self.connections)
        let after = try await Self.settled(daemon)
        let residentAfter = try #require(daemon.residentKiB)
        let heapPerRequest = Double(after.heapInUse - before.heapInUse) / Double(Self.connections)
        let residentPerRequest = Double((residentAfter - residentBefore) * 1024) / Double(Self.connections)
        print("one connection: \(heapPerRequest) B heap, \(residentPerRequest) B RSS per request")
        #expect(heapPerRequest <= Double(Self.heapBytesPerConnection))
        #expect(residentPerRequest <= Double(Self.residentBytesPerConnection))
    }

    /// The storm's threads' stop flag and their count of connections.
    final class Storm: Sendable {
        let stop = Atomic<Bool>(false)
        let opened = Atomic<Int>(0)
    }

    /// Eight clients opening and closing connections as fast as they can
    /// for 60 s: the daemon ends within 20 MiB of where it started, and a
    /// polite client of another uid (`petspot-location get` every 100 ms, as
    /// a monitoring check would) is answered within its timeout (10 s, the
    /// CLI's default) throughout. The
    /// storm's uid is held to its share of `max_clients`, which is what
    /// leaves the polite client a slot, and the polite client's connect
    /// waits in the listener's queue when the storm fills the backlog.
    @Test(.enabled(if: TestUsers.available, "needs root (useradd, setpriv)"))
    func aConnectionStormLeavesTheDaemonAsItWas() async throws {
        let users = TestUsers()
        defer { users.remove() }
        let polite = try users.user("polite")
        // Root (the storm) is no prompt agent here: an agent candidate may use
        // the slots kept for the agent and is not held to a uid's share.
        let policy =
            Self.policy + "\n[[policy.rules]]\nuid = \(polite.uid)\nstatus = \"authorized\"\n"
            + "[policy.agent]\nusers = []\n"
        let daemon = try PolicyDaemon(policy: policy, scenario: Self.halfSecondFixes)
        defer { daemon.finish() }
        try daemon.start()
        try Self.open(daemon, Self.warmUp, .getAndReadTheAnswer)
        _ = try await Self.settled(daemon)
        let residentBefore = try #require(daemon.residentKiB)

        let storm = Storm()
        let stormers = (0..<8).map { index in
            Thread {
                let pattern = Pattern.allCases[index % Pattern.allCases.count]
                while !storm.stop.load(ordering: .relaxed) {
                    guard let socket = try? daemon.connect() else { continue }
                    try? pattern.run(on: socket)
                    storm.opened.add(1, ordering: .relaxed)
                }
            }
        }
        for stormer in stormers { stormer.start() }
        defer { storm.stop.store(true, ordering: .relaxed) }

        // The polite client is the CLI, as a monitoring check runs it, with
        // its default timeout (10 s). Its connect may find the listen backlog
        // (4096) full of the storm's connections: the client library tries
        // again until its send limit (DaemonConnection.busyBacklogRetry).
        var answered = 0
        var worst = Duration.zero
        var failures: [String] = []
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            let start = ContinuousClock.now
            let run = try TestUsers.cli(polite, ["get", "--json", "--socket", daemon.socket, "--timeout", "10"])
            worst = max(worst, ContinuousClock.now - start)
            if run.status == 0 {
                answered += 1
            } else {
                failures.append("\(run.status.map(String.init) ?? "?"): \(run.stderr)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        storm.stop.store(true, ordering: .relaxed)
        let after = try await Self.settled(daemon)
        let residentAfter = try #require(daemon.residentKiB)
        print(
            "storm: \(storm.opened.load(ordering: .relaxed)) connections by 8 clients in 60 s; polite CLI: "
                + "\(answered) answered, worst \(worst), failures \(failures.prefix(3)); "
                + "RSS \(residentBefore) -> \(residentAfter) KiB, heap \(after.heapInUse) B")
        #expect(failures.isEmpty)
        #expect(answered > 0)
        #expect(worst < .seconds(10))
        #expect(residentAfter - residentBefore < 20 * 1024)
    }
}
