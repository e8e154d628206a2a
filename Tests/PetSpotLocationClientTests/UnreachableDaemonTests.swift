import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotLocationClient
import Synchronization
import Testing
import TestSupport

/// ``LocationClient`` when there is no daemon to talk to: a socket nobody
/// listens on, and a listener that takes the request and never answers.
@Suite("LocationClient without a daemon that answers", .timeLimit(.minutes(5)))
struct UnreachableDaemonTests {
    /// A Unix socket listener that accepts connections, reads what comes and
    /// never writes a byte: a wedged daemon. What it reads is reported, read by read
    /// (a request line of a hundred bytes comes in one).
    final class SilentListener: Sendable {
        let channel: any Channel
        let reads: AsyncStream<String>
        /// The connections, numbered from 1 as accepted: each reports here when the client closes it.
        let closed: AsyncStream<Int>
        /// Connections accepted so far, and `location.watch` lines read on each.
        let tally = Tally()

        final class Tally: Sendable {
            private let state = Mutex<(accepted: Int, watchLines: [Int: Int])>((0, [:]))
            func accept() -> Int {
                state.withLock {
                    $0.accepted += 1
                    return $0.accepted
                }
            }
            func read(_ text: String, on connection: Int) {
                let watches = text.split(separator: "\n").filter { $0.contains(#""method":"location.watch""#) }.count
                state.withLock { $0.watchLines[connection, default: 0] += watches }
            }
            var accepted: Int { state.withLock { $0.accepted } }
            func watchLines(on connection: Int) -> Int { state.withLock { $0.watchLines[connection] ?? 0 } }
        }

        init(path: String) async throws {
            let (lines, line) = AsyncStream<String>.makeStream()
            self.reads = lines
            let (closed, close) = AsyncStream<Int>.makeStream()
            self.closed = closed
            let tally = self.tally
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    let number = tally.accept()
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            Swallower(number: number, tally: tally, report: line, closed: close))
                    }
                }
                .bind(unixDomainSocketPath: path).get()
        }

        func close() async { try? await channel.close() }

        /// Reads, answers nothing.
        final class Swallower: ChannelInboundHandler, Sendable {
            typealias InboundIn = ByteBuffer
            let number: Int
            let tally: Tally
            let report: AsyncStream<String>.Continuation
            let closed: AsyncStream<Int>.Continuation
            init(
                number: Int, tally: Tally, report: AsyncStream<String>.Continuation,
                closed: AsyncStream<Int>.Continuation
            ) {
                self.number = number
                self.tally = tally
                self.report = report
                self.closed = closed
            }
            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                let text = String(buffer: unwrapInboundIn(data))
                tally.read(text, on: number)
                report.yield(text)
            }
            func channelInactive(context: ChannelHandlerContext) {
                closed.yield(number)
                context.fireChannelInactive()
            }
        }
    }

    /// Runs `body` with a silent listener on a socket in a fresh private folder.
    static func withSilentListener(_ body: (String, SilentListener) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "psc")
        defer { directory.remove() }
        let path = directory.file("silent.sock")
        let listener = try await SilentListener(path: path)
        do {
            try await body(path, listener)
        } catch {
            await listener.close()
            throw error
        }
        await listener.close()
    }

    @Test("a call the daemon never answers ends with daemonUnreachable once its answer limit passes")
    func silentDaemonStatus() async throws {
        try await Self.withSilentListener { path, listener in
            let limit = Duration.milliseconds(300)
            let client = LocationClient.patient(path, answerLimit: limit)
            var error: LocationError?
            let elapsed = await ContinuousClock().measure {
                error = await #expect(throws: LocationError.self) { try await client.daemonStatus() }
            }
            guard case .daemonUnreachable(let detail)? = error else {
                Issue.record("expected daemonUnreachable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("no answer"), "\(detail)")
            #expect(elapsed >= limit)
            // Bounded (a loaded machine may take seconds to connect, never the suite's time limit).
            #expect(elapsed < limit + .seconds(60), "took \(elapsed)")
            // It was sent, and only then waited for.
            var lines = listener.reads.makeAsyncIterator()
            #expect(await lines.next()?.contains(#""method":"daemon.status""#) == true)
        }
    }

    @Test("location waits for its own timeout plus the response margin, then daemonUnreachable")
    func silentDaemonLocation() async throws {
        try await Self.withSilentListener { path, listener in
            let timeout = Duration.milliseconds(200)
            let margin = Duration.milliseconds(200)
            let client = LocationClient.patient(path, answerLimit: .seconds(30), responseMargin: margin)
            var error: LocationError?
            let elapsed = await ContinuousClock().measure {
                error = await #expect(throws: LocationError.self) {
                    try await client.location(LocationRequest(timeout: timeout))
                }
            }
            #expect(error?.reason == "daemonUnreachable", "\(String(describing: error))")
            #expect(elapsed >= timeout + margin)
            #expect(elapsed < timeout + margin + .seconds(60), "took \(elapsed)")
            var lines = listener.reads.makeAsyncIterator()
            #expect(await lines.next()?.contains(#""method":"location.get""#) == true)
        }
    }

    @Test("a watch the daemon never answers ends with daemonUnreachable once the answer limit passes")
    func silentDaemonWatch() async throws {
        try await Self.withSilentListener { path, listener in
            let limit = Duration.milliseconds(300)
            let client = LocationClient.patient(path, answerLimit: limit)
            let start = ContinuousClock.now
            let outcome = await firstWithin(limit + .seconds(60)) {
                await ending(of: client.updates(WatchOptions()))
            }
            let elapsed = ContinuousClock.now - start
            guard let ended = outcome else {
                Issue.record("the watch was still waiting for its answer \(elapsed) later")
                return
            }
            guard case .daemonUnreachable(let detail)? = ended else {
                Issue.record("expected daemonUnreachable, got \(String(describing: ended))")
                return
            }
            #expect(detail.contains("no answer"), "\(detail)")
            #expect(elapsed >= limit)
            var lines = listener.reads.makeAsyncIterator()
            #expect(await lines.next()?.contains(#""method":"location.watch""#) == true)
        }
    }

    /// The client's lost write (issue 26): the answer limit used to cover
    /// connecting and writing too, and `NIOAsyncWriter` refuses a write from
    /// a cancelled task. When the limit passed before the line was written (a
    /// connect slowed by a busy machine), the call ended with "no answer"
    /// though the daemon was never asked. A limit shorter than any connect
    /// makes that certain; the limit now starts at the write.
    @Test("a request is written even when its answer limit is shorter than the connect: the limit starts at the write")
    func answerLimitStartsAtTheWrite() async throws {
        try await Self.withSilentListener { path, listener in
            let client = LocationClient.patient(path, answerLimit: .nanoseconds(1))
            let error = await #expect(throws: LocationError.self) { try await client.daemonStatus() }
            guard case .daemonUnreachable(let detail)? = error else {
                Issue.record("expected daemonUnreachable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("no answer"), "\(detail)")
            let read = await firstWithin(.seconds(30)) {
                var lines = listener.reads.makeAsyncIterator()
                return await lines.next()
            }
            #expect(read??.contains(#""method":"daemon.status""#) == true, "the request was never written")
        }
    }

    /// Many connections opening at once, each slower than its answer limit
    /// (the whole suite runs beside this, and scripts/test-under-load adds a
    /// CPU hog on every core): on the old code most of these were never written.
    @Test("every call is written: 40 clients × 5 calls at once with a 2 ms answer limit")
    func everyCallIsWrittenUnderLoad() async throws {
        try await Self.withSilentListener { path, listener in
            let clients = 40
            let calls = 5
            let outcomes = await withTaskGroup(of: [LocationError?].self) { group in
                for _ in 0..<clients {
                    group.addTask {
                        let client = LocationClient.patient(path, answerLimit: .milliseconds(2))
                        var errors: [LocationError?] = []
                        for _ in 0..<calls {
                            do throws(LocationError) {
                                _ = try await client.daemonStatus()
                                errors.append(nil)
                            } catch {
                                errors.append(error)
                            }
                        }
                        await client.close()
                        return errors
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(outcomes.count == clients * calls)
            let unanswered = outcomes.filter {
                if case .daemonUnreachable(let detail)? = $0 { return detail.contains("no answer") }
                return false
            }
            #expect(unanswered.count == clients * calls, "\(Set(outcomes.map { String(describing: $0) }))")
            // Every one of them reached the listener.
            let seen = await firstWithin(.seconds(60)) {
                var lines = listener.reads.makeAsyncIterator()
                var seen = 0
                while seen < clients * calls, let text = await lines.next() {
                    seen += text.split(separator: "\n").filter { $0.contains(#""method":"daemon.status""#) }.count
                }
                return seen
            }
            #expect(seen == clients * calls, "\(String(describing: seen)) of \(clients * calls) requests written")
        }
    }

    @Test(
        "watches left unanswered are bounded: past 32 on one connection the client takes it as wedged and opens a new one"
    )
    func unansweredWatchesAreBounded() async throws {
        try await Self.withSilentListener { path, listener in
            let client = LocationClient.patient(path, answerLimit: .milliseconds(100))
            // Watch after watch, each forgotten at its answer limit, until the client gives the connection up.
            var watches = 0
            while listener.tally.accepted < 2, watches < 100 {
                let ended = await ending(of: client.updates(WatchOptions()))
                guard case .daemonUnreachable? = ended else {
                    Issue.record("expected daemonUnreachable, got \(String(describing: ended))")
                    return
                }
                watches += 1
            }
            #expect(listener.tally.accepted == 2, "still one connection after \(watches) unanswered watches")
            var closed = listener.closed.makeAsyncIterator()
            #expect(await closed.next() == 1)  // the client closed the first, so everything on it has been read
            // Exactly one more than the bound went out on it (every watch is written before its limit starts).
            #expect(listener.tally.watchLines(on: 1) == 33, "\(listener.tally.watchLines(on: 1)) in \(watches)")
        }
    }

    @Test("cancelling a location call ends it at once with daemonUnreachable(\"cancelled\")")
    func cancelledLocation() async throws {
        try await Self.withSilentListener { path, listener in
            // Nothing here would end the call for a minute but its cancellation.
            let client = LocationClient.patient(path, answerLimit: .seconds(30), responseMargin: .seconds(30))
            let call = Task { () -> LocationError? in
                do throws(LocationError) {
                    _ = try await client.location(LocationRequest(timeout: .seconds(30)))
                    return nil
                } catch {
                    return error
                }
            }
            // Cancelled once the request has reached the daemon: the call is waiting for its answer.
            var lines = listener.reads.makeAsyncIterator()
            #expect(await lines.next()?.contains(#""method":"location.get""#) == true)
            let cancelled = ContinuousClock.now
            call.cancel()
            let outcome = await firstWithin(.seconds(20)) { await call.value }
            let elapsed = ContinuousClock.now - cancelled
            guard let error = outcome else {
                Issue.record("the cancelled call was still waiting \(elapsed) later")
                return
            }
            #expect(error == .daemonUnreachable("cancelled"), "\(String(describing: error))")
            // "At once": well inside the 60 s the call would otherwise wait, on a loaded machine too.
            #expect(elapsed < .seconds(20), "took \(elapsed)")
        }
    }

    @Test("a socket path where nobody listens: daemonUnreachable at once, naming the path and the reason")
    func missingSocket() async throws {
        let directory = try TemporaryDirectory(prefix: "psc")
        defer { directory.remove() }
        let path = directory.file("missing.sock")
        // A send limit no connect attempt comes near: a refusal must not wait for it.
        let client = LocationClient.patient(path)
        var error: LocationError?
        let elapsed = await ContinuousClock().measure {
            error = await #expect(throws: LocationError.self) { try await client.authorizationStatus() }
        }
        guard case .daemonUnreachable(let detail)? = error else {
            Issue.record("expected daemonUnreachable, got \(String(describing: error))")
            return
        }
        #expect(detail.contains(path), "\(detail)")
        #expect(detail.contains("No such file or directory"), "\(detail)")
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        // The watch stream reports the same, rather than waiting.
        let watchError = await #expect(throws: LocationError.self) {
            for try await _ in client.updates(WatchOptions()) {}
        }
        #expect(watchError?.reason == "daemonUnreachable", "\(String(describing: watchError))")
    }
}
