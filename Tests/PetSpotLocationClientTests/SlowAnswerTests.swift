import Foundation
import NIOCore
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotLocationClient
import Synchronization
import Testing
import TestSupport

/// ``LocationClient`` against a daemon that is slow on some requests: a call
/// that times out, or is cancelled, fails alone; the connection and what is
/// in flight on it carry on.
@Suite("LocationClient when one request gets no answer in time", .timeLimit(.minutes(5)))
struct SlowAnswerTests {
    /// A Unix socket listener standing in for the daemon: it answers
    /// `daemon.status` at once, with the number of the connection it came on
    /// (1 for the first accepted), and holds the answer to every other
    /// request until a `daemon.status` comes on the same connection; then it
    /// answers the held ones too, late. `location.unwatch` is answered at
    /// once. Every request is reported as it is read.
    final class HoldingListener: Sendable {
        struct Received: Sendable {
            var connection: Int
            var method: String
            var params: JSONValue?
        }

        /// The answers given late: a fix, a subscription, an empty object.
        static let lateFix =
            #"{"latitude":52.2411,"longitude":21.0081,"mode":2,"source":"static","accuracy":"full","age":0}"#
        static let lateSubscription = 7

        let channel: any Channel
        let received: AsyncStream<Received>

        init(path: String) async throws {
            let (received, report) = AsyncStream<Received>.makeStream()
            self.received = received
            let accepted = Counter()
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let connection = accepted.value.add(1, ordering: .relaxed).newValue
                        try channel.pipeline.syncOperations.addHandler(
                            Holder(connection: connection, report: report))
                    }
                }
                .bind(unixDomainSocketPath: path).get()
        }

        func close() async { try? await channel.close() }

        final class Counter: Sendable {
            let value = Atomic(0)
        }

        /// One connection's requests, on its event loop.
        final class Holder: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            typealias OutboundOut = ByteBuffer
            let connection: Int
            let report: AsyncStream<Received>.Continuation
            /// The bytes after the last newline read.
            private var partial: [UInt8] = []
            private var held: [(id: Double, method: String)] = []

            init(connection: Int, report: AsyncStream<Received>.Continuation) {
                self.connection = connection
                self.report = report
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                partial += unwrapInboundIn(data).readableBytesView
                while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = partial[..<newline]
                    defer { partial.removeSubrange(...newline) }
                    guard let message = try? JSONValue.parse(bytes: line),
                        case .string(let method)? = message["method"], case .number(let id)? = message["id"]
                    else { continue }
                    report.yield(Received(connection: connection, method: method, params: message["params"]))
                    switch method {
                    case "daemon.status":
                        answer(id, result: #"{"connection":\#(connection)}"#, context: context)
                        for request in held {
                            answer(request.id, result: Self.lateResult(request.method), context: context)
                        }
                        held.removeAll()
                    case "location.unwatch":
                        answer(id, result: "true", context: context)
                    default:
                        held.append((id, method))
                    }
                }
            }

            static func lateResult(_ method: String) -> String {
                switch method {
                case "location.get": HoldingListener.lateFix
                case "location.watch": #"{"subscription":\#(HoldingListener.lateSubscription)}"#
                default: "{}"
                }
            }

            private func answer(_ id: Double, result: String, context: ChannelHandlerContext) {
                let line = #"{"jsonrpc":"2.0","id":\#(Int(id)),"result":\#(result)}"# + "\n"
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: line)), promise: nil)
            }
        }
    }

    /// Runs `body` with a holding listener on a socket in a fresh private folder.
    static func withHoldingListener(_ body: (String, HoldingListener) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "psc")
        defer { directory.remove() }
        let listener = try await HoldingListener(path: directory.file("holding.sock"))
        do {
            try await body(directory.file("holding.sock"), listener)
        } catch {
            await listener.close()
            throw error
        }
        await listener.close()
    }

    @Test("a call that times out fails alone: a call in flight gets its answer, the next call uses the same connection")
    func timedOutCallFailsAlone() async throws {
        try await Self.withHoldingListener { path, listener in
            // The held call waits this long for nothing; the calls after it must
            // be answered within it too, on a machine that may be busy (at
            // 300 ms the answer to the next call missed it under 4 builds).
            let limit = Duration.seconds(3)
            let client = LocationClient.patient(path, answerLimit: limit)
            var received = listener.received.makeAsyncIterator()
            // In flight throughout (bounded by its timeout plus the margin, 65 s); answered only at the end.
            let inFlight = Task { () -> Result<LocationFix, LocationError> in
                do throws(LocationError) {
                    return .success(try await client.location(LocationRequest(timeout: .seconds(60))))
                } catch {
                    return .failure(error)
                }
            }
            #expect(await received.next()?.method == "location.get")
            // Held past its answer limit.
            let error = await #expect(throws: LocationError.self) { try await client.authorizationStatus() }
            guard case .daemonUnreachable(let detail)? = error else {
                Issue.record("expected daemonUnreachable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("no answer"), "\(detail)")
            #expect(await received.next()?.method == "authorization.status")
            // The next call goes out on the same connection; it releases the
            // held answers: the fix, and the timed-out call's answer, late.
            #expect(try await client.daemonStatus()["connection"] == .number(1))
            let fix = try await inFlight.value.get()
            #expect(fix.coordinate.latitude == 52.2411)
            // The late answer was dropped; the connection still serves.
            #expect(try await client.daemonStatus()["connection"] == .number(1))
        }
    }

    @Test("a cancelled call fails alone: daemonUnreachable(\"cancelled\"), the connection kept")
    func cancelledCallFailsAlone() async throws {
        try await Self.withHoldingListener { path, listener in
            // A limit that would end the call in a minute anyway, should cancelling not.
            let client = LocationClient.patient(path, answerLimit: .seconds(60))
            var received = listener.received.makeAsyncIterator()
            let call = Task { try await client.authorizationStatus() }
            #expect(await received.next()?.method == "authorization.status")
            call.cancel()
            let outcome = await firstWithin(.seconds(30)) { () -> LocationError? in
                do {
                    _ = try await call.value
                    return nil
                } catch {
                    return error as? LocationError ?? .internalError("\(error)")
                }
            }
            guard let error = outcome else {
                Issue.record("the cancelled call was still waiting, past its own answer limit")
                return
            }
            #expect(error == .daemonUnreachable("cancelled"), "\(String(describing: error))")
            let status = try await client.daemonStatus()
            #expect(status["connection"] == .number(1))
        }
    }

    @Test("a watch that times out: its late subscription is unwatched on the same connection")
    func timedOutWatchIsUnwatchedWhenAnsweredLate() async throws {
        try await Self.withHoldingListener { path, listener in
            // The held call waits this long for nothing; the calls after it must
            // be answered within it too, on a machine that may be busy (at
            // 300 ms the answer to the next call missed it under 4 builds).
            let limit = Duration.seconds(3)
            let client = LocationClient.patient(path, answerLimit: limit)
            var received = listener.received.makeAsyncIterator()
            let outcome = await firstWithin(limit + .seconds(60)) {
                await ending(of: client.updates(WatchOptions()))
            }
            guard let ended = outcome else {
                Issue.record("the watch was still waiting for its answer")
                return
            }
            #expect(ended?.reason == "daemonUnreachable", "\(String(describing: ended))")
            #expect(await received.next()?.method == "location.watch")
            // Releases the watch's answer: a subscription nobody reads.
            let status = try await client.daemonStatus()
            #expect(status["connection"] == .number(1))
            #expect(await received.next()?.method == "daemon.status")
            let unwatch = await received.next()
            #expect(unwatch?.method == "location.unwatch")
            #expect(unwatch?.params?["subscription"] == .number(Double(HoldingListener.lateSubscription)))
            #expect(unwatch?.connection == 1)
        }
    }
}
