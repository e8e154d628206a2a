import Glibc
import Foundation
import Testing
import TestSupport

/// The NMEA socket served by the daemon's one socket server (issue 39 item
/// 4): the same listen backlog as the protocol socket, the same admission
/// (every consumer counts against its uid's share of `max_clients`), the
/// one newest-only writer for a consumer that does not read, and nothing
/// left behind by consumers that come and go.
@Suite(.serialized) struct NMEASocketServerTests {
    /// This test's uid authorized, and no prompt agent (an agent candidate
    /// is not held to its uid's share); the NMEA socket at `socket`.
    static func policy(nmea socket: String, maxClients: Int = 4) -> String {
        """
        [policy]
        prompt = "deny"
        [[policy.rules]]
        uid = \(getuid())
        status = "authorized"
        [policy.agent]
        users = []

        [nmea]
        socket = "\(socket)"
        max_clients = \(maxClients)
        """
    }

    /// A daemon (100 fixes a second unless `scenario` says otherwise) with
    /// the NMEA socket at `nmea.sock` in its folder, started.
    static func daemon(
        daemon extra: String = "", scenario: String = PolicyDaemon.smallWalk, maxClients: Int = 4
    ) throws -> (PolicyDaemon, nmea: String) {
        let daemon = try PolicyDaemon(policy: "", scenario: scenario)
        let nmea = daemon.directory.file("nmea.sock")
        try daemon.writeConfiguration(policy: Self.policy(nmea: nmea, maxClients: maxClients), daemon: extra)
        try daemon.start()
        // The daemon is started once its protocol socket accepts; the NMEA
        // socket is its own service, bound beside it. No readiness signal
        // reaches a test process: poll for the socket with a deadline.
        let deadline = Date().addingTimeInterval(60)
        while !RawSocket.isListening(nmea) {
            guard Date() < deadline else {
                daemon.finish()
                throw PolicyTestError("the NMEA socket was never bound")
            }
            usleep(20_000)
        }
        return (daemon, nmea)
    }

    /// The next GGA sentence on `socket`.
    static func gga(_ socket: RawSocket, timeout: Double = 60) throws -> String {
        while true {
            let line = try socket.readLine(timeout: timeout)
            if line.hasPrefix("$GPGGA,") { return line }
        }
    }

    /// A GGA sentence's time of day, in seconds.
    static func secondsOfDay(_ gga: String) -> Double? {
        let time = gga.split(separator: ",", omittingEmptySubsequences: false).dropFirst().first ?? ""
        guard time.count >= 6, let whole = Double(time) else { return nil }
        let hours = (whole / 10_000).rounded(.down)
        let minutes = ((whole - hours * 10_000) / 100).rounded(.down)
        return hours * 3600 + minutes * 60 + (whole - hours * 10_000 - minutes * 100)
    }

    /// Whether the daemon closes `socket` without sending a byte.
    static func closedWithoutASentence(_ socket: RawSocket) -> Bool {
        do {
            _ = try socket.readLine(timeout: 60)
            return false
        } catch RawSocket.Failure.closed {
            return true
        } catch {
            return false
        }
    }

    /// Each listening socket's backlog, by path (`ss`: the Send-Q of a listening Unix socket).
    ///
    /// Run with `popen`, not ``ChildProcess``: with the socket-activated
    /// daemon a child of this process, Foundation's `Process` missed `ss`'s
    /// exit every time (its zombie was never reaped, and the wait hung).
    static func listenBacklogs() throws -> [String: Int] {
        guard let pipe = popen("/usr/bin/ss -xlnH", "r") else { throw PolicyTestError("cannot run ss") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&chunk, 1, chunk.count, pipe), count > 0 { bytes += chunk[..<count] }
        pclose(pipe)
        var backlogs: [String: Int] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            // u_str LISTEN 0 4096 /path 12345 * 0
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 5, fields[1] == "LISTEN", let backlog = Int(fields[3]) else { continue }
            backlogs[String(fields[4])] = backlog
        }
        return backlogs
    }

    /// The server's backlog as the kernel caps it (net.core.somaxconn).
    static func expectedBacklog() throws -> Int {
        let text = try String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8)
        let somaxconn = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        return min(4096, somaxconn)
    }

    @Test(
        "the NMEA socket listens with the protocol socket's backlog (4096, capped by somaxconn)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ss"), "ss (iproute2) is not installed"))
    func bothSocketsListenWithTheSameBacklog() throws {
        let (daemon, nmea) = try Self.daemon()
        defer { daemon.finish() }
        let backlogs = try Self.listenBacklogs()
        #expect(backlogs[daemon.socket] == (try Self.expectedBacklog()), "\(backlogs)")
        #expect(backlogs[nmea] == backlogs[daemon.socket], "\(backlogs)")
    }

    @Test(
        "a socket systemd passes listens with the same backlog (NIO's adoption would leave it at 128)",
        .enabled(
            if: SocketActivationTests.activator != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/ss"),
            "systemd-socket-activate or ss is not installed"))
    func aPassedSocketListensWithTheSameBacklog() throws {
        let activator = try #require(SocketActivationTests.activator)
        // Not started by hand: systemd-socket-activate starts it on the first connection.
        let daemon = try PolicyDaemon(policy: "[policy]\ndefault = \"authorized\"")
        defer { daemon.finish() }
        let passed = daemon.directory.file("passed.sock")
        let child = try ChildProcess(
            activator,
            ["-l", passed, RepositoryPaths.executable("petspot-locationd"), "--config", daemon.configPath])
        defer { child.terminate() }
        let deadline = Date().addingTimeInterval(60)
        while !RawSocket.isListening(passed) {
            try #require(Date() < deadline, "systemd-socket-activate did not listen on \(passed)")
            usleep(20_000)
        }
        // The first connection starts the daemon, which adopts the socket; answered, it serves on it.
        #expect(resultObject(try RawSocket(path: passed).call("daemon.status")) != nil)
        let backlogs = try Self.listenBacklogs()
        #expect(backlogs[passed] == (try Self.expectedBacklog()), "\(backlogs)")
    }

    @Test("NMEA consumers count against their uid's share of max_clients, as protocol clients do")
    func consumersCountAgainstTheUidsShare() async throws {
        let (daemon, nmea) = try Self.daemon(daemon: "max_clients_per_uid = 2")
        defer { daemon.finish() }
        // The connections that probed for the daemon's start may still hold
        // slots until the daemon has seen them close: a consumer refused for
        // that tries again. Two admitted consumers then hold the whole share.
        func admitted() throws -> RawSocket {
            let deadline = Date().addingTimeInterval(60)
            while true {
                let consumer = try RawSocket(path: nmea)
                if (try? Self.gga(consumer, timeout: 10)) != nil { return consumer }
                guard Date() < deadline else { throw PolicyTestError("no NMEA consumer admitted") }
                usleep(20_000)
            }
        }
        var first: RawSocket? = try admitted()
        let second = try admitted()
        // The uid holds its share (2) with two consumers, below nmea.max_clients (4):
        // a third consumer is let go without a sentence, a protocol client is told why.
        #expect(Self.closedWithoutASentence(try RawSocket(path: nmea)), "a third consumer was served")
        let refused = try #require(try daemon.connect().readJSON() as? [String: Any])
        #expect(errorReason(refused) == "tooManyClients", "\(refused)")
        // The consumers are still served, and once one leaves its slot is free for a protocol client.
        _ = try Self.gga(try #require(first))
        _ = try Self.gga(second)
        first = nil
        let admitted = await eventually(every: .milliseconds(20)) {
            guard let socket = try? daemon.connect(), let status = try? socket.call("daemon.status") else {
                return false
            }
            return resultObject(status) != nil
        }
        #expect(admitted, "the slot of the consumer that left was not freed")
    }

    @Test("a consumer that never reads gets the newest fix when it reads again; everyone else is served meanwhile")
    func aConsumerThatNeverReadsHoldsOnlyTheNewestFix() async throws {
        let (daemon, nmea) = try Self.daemon()
        defer { daemon.finish() }
        let stalled = try RawSocket(path: nmea)
        _ = try Self.gga(stalled)
        // The daemon writes until the socket takes no more, then up to NIO's
        // high-water mark (64 KiB, about 3 s of sentences here) more; past
        // that it holds the newest fix only.
        stalled.waitUntilIncomingSettles(quiet: 1, timeout: 120)
        // Others are served: another consumer reads sentences (then leaves: it
        // would be a second consumer that does not read), a client is answered.
        do {
            let other = try RawSocket(path: nmea)
            for _ in 0..<50 { _ = try Self.gga(other) }
            #expect(resultObject(try daemon.connect().call("location.get", id: 1)) != nil)
        }
        try await Task.sleep(for: .seconds(5))
        let heapBefore = try ConnectionMemoryTests.memory(daemon).heapInUse
        // 5 s more of the stall, at 100 fixes a second: 500 fixes not read, none
        // kept (queued, they would take some 170 KiB).
        try await Task.sleep(for: .seconds(5))
        let heapAfter = try ConnectionMemoryTests.memory(daemon).heapInUse
        print("heap while a consumer does not read: \(heapBefore) -> \(heapAfter) B")
        #expect(heapAfter - heapBefore < 96 << 10, "the daemon's heap grew while the consumer did not read")
        // Reading again: what the socket and NIO's buffer held, then the fix
        // held for it: the fixes of the rest of the stall were never queued,
        // so the GGA times jump by seconds.
        let now = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        var times: [Double] = []
        while times.last.map({ ($0 - now + 86_400).truncatingRemainder(dividingBy: 86_400) > 43_200 }) ?? true {
            times.append(try #require(Self.secondsOfDay(try Self.gga(stalled))))
        }
        let gaps = zip(times, times.dropFirst()).map { ($1 - $0 + 86_400).truncatingRemainder(dividingBy: 86_400) }
        let widest = gaps.max() ?? 0
        print("stalled consumer: \(times.count) GGA sentences until a current one, widest gap \(widest) s")
        #expect(widest >= 2, "no gap in the fixes: every fix of the stall was queued for the consumer")
    }

    /// NMEA consumers that come and go leave nothing behind: the daemon's
    /// count of live connection objects comes back to the one connection
    /// asking, and its heap and RSS grow by no more per connection than a
    /// protocol client's may (``ConnectionMemoryTests``).
    @Test func consumersLeaveNothingBehind() async throws {
        // 100 fixes a second: a consumer that reads waits at most 10 ms for its first.
        let (daemon, nmea) = try Self.daemon(maxClients: 64)
        defer { daemon.finish() }
        func open(_ count: Int) throws {
            for index in 0..<count {
                // Half read a fix (the current one, shown at once), half leave at once.
                guard index.isMultiple(of: 2) else {
                    _ = try RawSocket(path: nmea)
                    continue
                }
                // The slots of consumers that just left are freed once the
                // daemon has seen them go: until then `nmea.max_clients` turns
                // a new one away (closed without a sentence), and it asks again.
                var refusals = 0
                while true {
                    do {
                        _ = try Self.gga(try RawSocket(path: nmea))
                        break
                    } catch RawSocket.Failure.closed where refusals < 10_000 {
                        refusals += 1
                    }
                }
            }
        }
        let connections = 2_000
        // Warmed up with as many as are measured: the allocator keeps the
        // peak of consumers alive at once, and the measured round starts from
        // it (``ConnectionMemoryTests/patternWarmUp``).
        try open(connections)
        let before = try await ConnectionMemoryTests.settled(daemon)
        let residentBefore = try #require(daemon.residentKiB)
        try open(connections)
        let after = try await ConnectionMemoryTests.settled(daemon)
        let residentAfter = try #require(daemon.residentKiB)
        let heapPerConnection = Double(after.heapInUse - before.heapInUse) / Double(connections)
        let residentPerConnection = Double((residentAfter - residentBefore) * 1024) / Double(connections)
        print(
            "NMEA consumers: heap \(heapPerConnection) B, RSS \(residentPerConnection) B per connection "
                + "(\(before.heapInUse) -> \(after.heapInUse) B)")
        #expect(heapPerConnection <= Double(ConnectionMemoryTests.heapBytesPerConnection))
        #expect(residentPerConnection <= Double(ConnectionMemoryTests.residentBytesPerConnection))
    }
}
