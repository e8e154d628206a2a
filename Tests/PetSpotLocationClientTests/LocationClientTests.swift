import DaemonTestSupport
import Glibc
import PetSpotDaemon
import PetSpotJSON
import PetSpotLocation
import PetSpotLocationClient
import PetSpotPolicy
import PetSpotSettings
import TestSupport
import Testing

/// ``LocationClient`` against a real daemon run in this process
/// (``InProcessDaemon``): the answers it decodes, the errors it maps.
@Suite("LocationClient against an in-process daemon", .timeLimit(.minutes(5)))
struct LocationClientTests {
    /// Where the static source stands (Warsaw, Saski Park) and how well.
    static let latitude = 52.2411
    static let longitude = 21.0081
    static let horizontalAccuracy = 12.5
    static let altitude = 104.0
    static let cellMeters = 3000.0

    /// The static source at the position above, and `policy` with the reduced grid's cell of ``cellMeters``.
    static func configuration(policy: Policy) -> DaemonConfiguration {
        var policy = policy
        policy.reducedAccuracyMeters = cellMeters
        return InProcessDaemon.configuration(
            at: StaticSourceSettings(
                coordinate: Coordinate(latitude: latitude, longitude: longitude),
                horizontalAccuracy: horizontalAccuracy, altitude: altitude),
            policy: policy)
    }

    static let authorized = configuration(policy: Policy(defaultStatus: .authorized))

    @Test("location answers with the configured static position, in full")
    func locationIsTheStaticPosition() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            let fix = try await client.location(LocationRequest(timeout: .seconds(2)))
            #expect(fix.coordinate.latitude == Self.latitude)
            #expect(fix.coordinate.longitude == Self.longitude)
            #expect(fix.horizontalAccuracy == Self.horizontalAccuracy)
            #expect(fix.altitude == Self.altitude)
            #expect(fix.mode == .threeD)  // an altitude is configured
            #expect(fix.source == .static)
            #expect(fix.accuracy == .full)
            #expect(fix.timestamp != nil)
        }
    }

    @Test("authorizationStatus reports the policy's answer and the identity the kernel gave the daemon")
    func authorizationStatusOfAnAuthorizedClient() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            let state = try await client.authorizationStatus()
            #expect(state.status == .authorized)
            #expect(state.accuracy == .full)
            #expect(state.decidedBy == .default)
            // The daemon runs in this process: the peer it sees is this process.
            #expect(state.client?.uid == getuid())
            #expect(state.client?.gid == getgid())
            #expect(state.client?.pid == getpid())
        }
    }

    @Test(
        "a refusing policy: location throws its error, authorizationStatus says why",
        arguments: [
            (Policy(defaultStatus: .denied), LocationError.denied, AuthorizationStatus.denied, DecisionOrigin.default),
            (Policy(defaultStatus: .notDetermined), .notDetermined, .notDetermined, .default),
            (Policy(rules: [PolicyRule(uid: getuid(), status: .restricted)]), .restricted, .restricted, .rule),
        ])
    func refusals(
        policy: Policy, error: LocationError, status: AuthorizationStatus, origin: DecisionOrigin
    )
        async throws
    {
        try await InProcessDaemon.with(Self.configuration(policy: policy)) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            await #expect(throws: error) { try await client.location(LocationRequest(timeout: .seconds(2))) }
            let state = try await client.authorizationStatus()
            #expect(state.status == status)
            #expect(state.accuracy == nil)
            #expect(state.decidedBy == origin)
        }
    }

    @Test("a watch under a refusing policy ends with the refusal")
    func refusedWatch() async throws {
        try await InProcessDaemon.with(Self.configuration(policy: Policy(defaultStatus: .denied))) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            await #expect(throws: LocationError.denied) {
                for try await _ in client.updates(WatchOptions()) {}
            }
        }
    }

    @Test("requestAuthorization with prompt = allow grants what was asked, remembered for the uid")
    func requestAuthorizationAllowed() async throws {
        let policy = Policy(defaultStatus: .notDetermined, prompt: .allow)
        try await InProcessDaemon.with(Self.configuration(policy: policy)) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            #expect(try await client.authorizationStatus().status == .notDetermined)
            let granted = try await client.requestAuthorization(accuracy: .reduced)
            #expect(granted.status == .authorized)
            #expect(granted.accuracy == .reduced)
            #expect(granted.decidedBy == .decision)
            // Reduced: snapped to the grid, its accuracy the cell's.
            let fix = try await client.location(LocationRequest(timeout: .seconds(2)))
            #expect(fix.accuracy == .reduced)
            #expect((fix.horizontalAccuracy ?? 0) >= Self.cellMeters)
            // Remembered for the uid: another connection is authorized too.
            let other = LocationClient.patient(daemon.socketPath)
            #expect(try await other.authorizationStatus() == granted)
        }
    }

    @Test("requestAuthorization with prompt = deny gives denied; location then throws denied")
    func requestAuthorizationDenied() async throws {
        let policy = Policy(defaultStatus: .notDetermined, prompt: .deny)
        try await InProcessDaemon.with(Self.configuration(policy: policy)) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            let state = try await client.requestAuthorization(accuracy: .full)
            #expect(state.status == .denied)
            #expect(state.decidedBy == .decision)
            await #expect(throws: LocationError.denied) { try await client.location(LocationRequest()) }
        }
    }

    @Test("resetAuthorization: an admin forgets a uid's decision; anyone else gets forbidden")
    func resetAuthorization() async throws {
        let user = try #require(UserName.current)
        let policy = Policy(defaultStatus: .notDetermined, prompt: .allow, admin: PrincipalSet(users: [user]))
        try await InProcessDaemon.with(Self.configuration(policy: policy)) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            #expect(try await client.requestAuthorization(accuracy: .full).status == .authorized)
            try await client.resetAuthorization(uid: getuid())
            #expect(try await client.authorizationStatus().status == .notDetermined)
        }
        let nobodyAdmin = Policy(defaultStatus: .authorized, admin: PrincipalSet())
        try await InProcessDaemon.with(Self.configuration(policy: nobodyAdmin)) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            await #expect(throws: LocationError.forbidden) { try await client.resetAuthorization(uid: getuid()) }
        }
    }

    @Test("daemonStatus: version, the static source, this one client")
    func daemonStatus() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            let status = try await client.daemonStatus()
            #expect(status["version"] == .string(DaemonVersion.current))
            #expect(status["source"]?["kind"] == .string("static"))
            #expect(status["source"]?["connected"] == .bool(true))
            #expect(status["clients"] == .number(1))
            #expect(status["watchers"] == .number(0))
        }
    }

    @Test("calls made at once before any connection share one connection")
    func concurrentFirstCallsShareOneConnection() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { _ = try await client.authorizationStatus() }
                }
                try await group.waitForAll()
            }
            // One client holds one connection: an "allow once" lasts as long as it.
            let clients = try await client.daemonStatus()["clients"]
            #expect(clients == .number(1))
        }
    }

    @Test(
        "a watch delivers fixes at its interval; without resubscription it ends with daemonUnreachable when the daemon stops"
    )
    func watchUntilTheDaemonStops() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath, resubscribe: false)
            let interval = Duration.milliseconds(100)
            var updates = client.updates(WatchOptions(interval: interval)).makeAsyncIterator()
            var fixes: [LocationFix] = []
            for _ in 0..<3 {
                fixes.append(try #require(try await updates.next()))
            }
            #expect(fixes.allSatisfy { $0.coordinate.latitude == Self.latitude && $0.source == .static })
            // At most one per interval: the fixes' own times (milliseconds on the wire).
            let times = try fixes.map { try #require($0.timestamp).secondsSince1970 }
            for (previous, next) in zip(times, times.dropFirst()) {
                #expect(next - previous >= interval.seconds - 0.001)
            }
            let watching = try await LocationClient.patient(daemon.socketPath).daemonStatus()
            #expect(watching["watchers"] == .number(1))

            try await daemon.stop()
            // Whatever was still buffered, then the end: never a normal finish.
            let error = await #expect(throws: LocationError.self) {
                while try await updates.next() != nil {}
            }
            #expect(error?.reason == "daemonUnreachable", "\(String(describing: error))")
        }
    }

    @Test("after the daemon restarts on the same socket the client connects again, at its very next call")
    func reconnectsAfterRestart() async throws {
        let directory = try TemporaryDirectory(prefix: "psd")
        defer { directory.remove() }
        let client = try await InProcessDaemon.with(Self.authorized, in: directory) { first in
            let client = LocationClient.patient(first.socketPath)
            #expect(try await client.location(LocationRequest()).coordinate.latitude == Self.latitude)
            try await first.stop()
            let error = await #expect(throws: LocationError.self) { try await client.daemonStatus() }
            #expect(error?.reason == "daemonUnreachable", "\(String(describing: error))")
            return client
        }
        try await InProcessDaemon.with(Self.authorized, in: directory) { _ in
            let fix = try await client.location(LocationRequest())
            #expect(fix.coordinate.latitude == Self.latitude)
        }
        // Stopped and started again with no call in between: the very next
        // call goes to the new daemon, never to the connection the old one closed.
        try await InProcessDaemon.with(Self.authorized, in: directory) { _ in
            let fix = try await client.location(LocationRequest())
            #expect(fix.coordinate.latitude == Self.latitude)
            #expect(try await client.daemonStatus()["clients"] == .number(1))
        }
    }

    @Test("a watch lives through two daemon restarts: the gap is shown, then it resubscribes with the same options")
    func watchSurvivesRestarts() async throws {
        let directory = try TemporaryDirectory(prefix: "psd")
        defer { directory.remove() }
        let interval = Duration.milliseconds(100)
        let client = try await InProcessDaemon.with(Self.authorized, in: directory) { daemon in
            LocationClient.patient(daemon.socketPath)
        }
        var events: AsyncThrowingStream<WatchEvent, any Error>.Iterator? = nil
        for round in 1...3 {
            try await InProcessDaemon.with(Self.authorized, in: directory) { daemon in
                if events == nil {
                    events = client.watch(WatchOptions(interval: interval)).makeAsyncIterator()
                } else {
                    // The gap: interrupted (once, whatever the tries), then resumed, then fixes.
                    // Fixes buffered before the stop come first.
                    var interrupted = try await events?.next()
                    while case .fix? = interrupted { interrupted = try await events?.next() }
                    guard case .interrupted(.daemonUnreachable)? = interrupted else {
                        Issue.record(
                            "round \(round): expected interrupted(daemonUnreachable), got \(String(describing: interrupted))"
                        )
                        return
                    }
                    #expect(try await events?.next() == .resumed, "round \(round)")
                }
                var times: [Double] = []
                for _ in 0..<2 {
                    guard case .fix(let fix)? = try await events?.next() else {
                        Issue.record("round \(round): expected a fix")
                        return
                    }
                    #expect(fix.coordinate.latitude == Self.latitude)
                    times.append(try #require(fix.timestamp).secondsSince1970)
                }
                // The same options: still at most one fix per interval.
                #expect(times[1] - times[0] >= interval.seconds - 0.001, "round \(round)")
                // Subscribed on this daemon, by this client's one connection.
                let status = try await LocationClient.patient(daemon.socketPath).daemonStatus()
                #expect(status["watchers"] == .number(1), "round \(round)")
            }
        }
        // The daemon is gone for good: the watch waits for it, it does not end.
        var last = try await events?.next()
        while case .fix? = last { last = try await events?.next() }
        guard case .interrupted? = last else {
            Issue.record("expected interrupted, got \(String(describing: last))")
            return
        }
        // Closed on purpose, the waiting watch ends.
        await client.close()
        let error = await #expect(throws: LocationError.self) {
            while try await events?.next() != nil {}
        }
        #expect(error?.reason == "daemonUnreachable", "\(String(describing: error))")
    }

    @Test("close() ends a resubscribing watch with daemonUnreachable: a restart is survived, a close is not")
    func closeEndsAResubscribingWatch() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            var updates = client.updates(WatchOptions(interval: .milliseconds(100))).makeAsyncIterator()
            _ = try #require(try await updates.next())
            await client.close()
            let error = await #expect(throws: LocationError.self) {
                while try await updates.next() != nil {}
            }
            #expect(error == .daemonUnreachable("the connection was closed"), "\(String(describing: error))")
        }
    }

    @Test("a call made right after close() opens a new connection rather than writing to the closing one")
    func callAfterCloseReconnects() async throws {
        try await InProcessDaemon.with(Self.authorized) { daemon in
            let client = LocationClient.patient(daemon.socketPath)
            _ = try await client.daemonStatus()
            for _ in 0..<10 {
                await client.close()
                #expect(try await client.authorizationStatus().status == .authorized)
            }
        }
    }
}

/// The user name of this process's uid, from the user database.
enum UserName {
    static var current: String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
