import NIOCore
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotLocationClient
import Testing
import TestSupport

/// ``LocationClient`` against a peer on the socket that answers with numbers
/// no daemon sends: ids, error codes and subscription numbers beyond any
/// integer, or fractional. A trap here would take the kiosk down with it
/// (its GPS button uses this client), so each must read as a clear error or
/// be ignored, and the call still gets its real answer.
@Suite("LocationClient against answers with numbers out of range", .timeLimit(.minutes(5)))
struct HostileAnswerTests {
    /// Answers every request with `junk` lines first, then `answer(id)`.
    final class ScriptedListener: Sendable {
        let channel: any Channel

        init(path: String, junk: [String], answer: @escaping @Sendable (Int) -> String) async throws {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Scripted(junk: junk, answer: answer))
                    }
                }
                .bind(unixDomainSocketPath: path).get()
        }

        func close() async { try? await channel.close() }

        final class Scripted: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            typealias OutboundOut = ByteBuffer
            let junk: [String]
            let answer: @Sendable (Int) -> String
            private var partial: [UInt8] = []

            init(junk: [String], answer: @escaping @Sendable (Int) -> String) {
                self.junk = junk
                self.answer = answer
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                partial += unwrapInboundIn(data).readableBytesView
                while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = partial[..<newline]
                    defer { partial.removeSubrange(...newline) }
                    guard let message = try? JSONValue.parse(bytes: line), case .number(let id)? = message["id"],
                        let whole = Int(exactly: id)
                    else { continue }
                    let text = (junk + [answer(whole)]).map { $0 + "\n" }.joined()
                    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
                }
            }
        }
    }

    static func withListener(
        junk: [String], answer: @escaping @Sendable (Int) -> String,
        _ body: (LocationClient) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory(prefix: "psh")
        defer { directory.remove() }
        let listener = try await ScriptedListener(path: directory.file("hostile.sock"), junk: junk, answer: answer)
        let client = LocationClient.patient(directory.file("hostile.sock"), answerLimit: .seconds(30))
        do {
            try await body(client)
        } catch {
            await client.close()
            await listener.close()
            throw error
        }
        await client.close()
        await listener.close()
    }

    /// Lines with numbers no integer holds, sent before the real answer.
    static let junk = [
        #"{"jsonrpc":"2.0","id":1e300,"result":{}}"#,
        #"{"jsonrpc":"2.0","id":-1e300,"result":{"subscription":1e300}}"#,
        #"{"jsonrpc":"2.0","id":2.5,"result":{}}"#,
        #"{"jsonrpc":"2.0","method":"location.update","params":{"subscription":-1e300,"fix":{}}}"#,
        #"{"jsonrpc":"2.0","method":"location.error","params":{"subscription":0.5,"error":{"code":1e300}}}"#,
    ]

    @Test("an error code beyond Int32 reads as a malformed error object, not a trap")
    func errorCodeOutOfRange() async throws {
        for code in ["-320777777777777777777777777700", "1e300", "-32600.5", "4294967296"] {
            try await Self.withListener(junk: []) { id in
                #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":\#(code),"message":"no"}}"#
            } _: { client in
                let error = await #expect(throws: LocationError.self) { try await client.daemonStatus() }
                guard case .internalError(let detail)? = error else {
                    Issue.record("code \(code): expected internalError, got \(String(describing: error))")
                    return
                }
                #expect(detail.contains("malformed error object"), "code \(code): \(detail)")
            }
        }
    }

    @Test("ids and subscription numbers beyond any integer are ignored; the call gets its real answer")
    func junkBeforeTheAnswer() async throws {
        try await Self.withListener(junk: Self.junk) { id in
            #"{"jsonrpc":"2.0","id":\#(id),"result":{"version":"hostile"}}"#
        } _: { client in
            let status = try await client.daemonStatus()
            #expect(status["version"] == .string("hostile"))
        }
    }

    @Test("a watch whose subscription number is beyond any integer ends with a clear error")
    func watchSubscriptionOutOfRange() async throws {
        try await Self.withListener(junk: []) { id in
            #"{"jsonrpc":"2.0","id":\#(id),"result":{"subscription":1e300}}"#
        } _: { client in
            var events = client.updates(WatchOptions()).makeAsyncIterator()
            await #expect(throws: (any Error).self) { _ = try await events.next() }
        }
    }
}
