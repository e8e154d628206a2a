import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// One connection to the daemon: sends requests with fresh ids, matches
/// answers to callers, routes `location.update` notifications to their
/// subscriptions. Connects lazily; after the daemon goes away every caller
/// gets `daemonUnreachable` and the next call connects again.
actor DaemonConnection {
    private enum Pending {
        /// Sent, the caller not yet suspended: an answer arriving now is kept in `early`.
        case sent
        case call(CheckedContinuation<Result<JSONValue, LocationError>, Never>)
        case watch(AsyncThrowingStream<LocationFix, any Error>.Continuation)
    }

    private struct Link {
        var outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var channel: any Channel
        var reader: Task<Void, Never>
    }

    let socketPath: String
    private var link: Link?
    private var readerTask: Task<Void, Never>?
    /// The connection being opened, while it is.
    private var connecting: Task<Result<Link, LocationError>, Never>?
    private var nextID = 0
    private var pending: [Int: Pending] = [:]
    private var early: [Int: Result<JSONValue, LocationError>] = [:]
    private var subscriptions: [Int: AsyncThrowingStream<LocationFix, any Error>.Continuation] = [:]

    init(socketPath: String) { self.socketPath = socketPath }

    deinit { link?.reader.cancel() }

    /// Calls `method` and returns its result.
    func call(_ method: RPCMethod, params: JSONValue?) async throws(LocationError) -> JSONValue {
        // The entry exists before the request leaves: the answer may arrive
        // (the actor is reentrant) before this call suspends for it.
        let id = try await send(method, params: params, registering: .sent)
        if let answer = early.removeValue(forKey: id) { return try answer.get() }
        let result = await withCheckedContinuation { continuation in
            pending[id] = .call(continuation)
        }
        return try result.get()
    }

    /// Starts a watch whose fixes go to `continuation`.
    func watch(_ options: WatchOptions, into continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation)
        async
    {
        do {
            _ = try await send(.locationWatch, params: RPCParams.encode(options), registering: .watch(continuation))
        } catch {
            continuation.finish(throwing: error)
        }
    }

    /// Ends a subscription (best effort).
    func unwatch(_ subscription: Int) async {
        guard subscriptions.removeValue(forKey: subscription) != nil else { return }
        _ = try? await send(
            .locationUnwatch, params: ["subscription": .number(Double(subscription))], registering: nil)
    }

    /// Closes the connection.
    func close() {
        link?.channel.close(promise: nil)
    }

    /// Sends a request, registering `entry` for its answer first.
    private func send(_ method: RPCMethod, params: JSONValue?, registering entry: Pending?) async throws(LocationError)
        -> Int
    {
        let link = try await connected()
        nextID += 1
        let id = nextID
        if let entry { pending[id] = entry }
        let line = RPCCodec.line(RPCCodec.request(id: .number(Double(id)), method: method.rawValue, params: params))
        do {
            try await link.outbound.write(ByteBuffer(string: line))
        } catch {
            pending.removeValue(forKey: id)
            early.removeValue(forKey: id)
            throw .daemonUnreachable("the connection to \(socketPath) broke")
        }
        return id
    }

    /// The connection, opened if there is none. Calls made while it is
    /// being opened wait for that one: one client, one connection.
    private func connected() async throws(LocationError) -> Link {
        if let link { return link }
        let attempt: Task<Result<Link, LocationError>, Never>
        if let connecting {
            attempt = connecting
        } else {
            // Isolated to this actor: it starts only once `connecting` is set.
            attempt = Task {
                let result: Result<Link, LocationError>
                do throws(LocationError) {
                    result = .success(try await open())
                } catch {
                    result = .failure(error)
                }
                connecting = nil
                return result
            }
            connecting = attempt
        }
        return try await attempt.value.get()
    }

    private func open() async throws(LocationError) -> Link {
        if let link { return link }
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: 1 << 20))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw .daemonUnreachable("cannot connect to \(socketPath): \(Self.explain(error))")
        }
        // The reader owns the channel for its whole life (executeThenClose)
        // and hands the writer back once it is running.
        let outbound = await withCheckedContinuation {
            (ready: CheckedContinuation<NIOAsyncChannelOutboundWriter<ByteBuffer>, Never>) in
            let reader = Task { [weak self] in
                do {
                    try await channel.executeThenClose { inbound, outbound in
                        ready.resume(returning: outbound)
                        for try await line in inbound {
                            await self?.receive(line)
                        }
                    }
                } catch {}
                await self?.disconnected()
            }
            readerTask = reader
        }
        let link = Link(outbound: outbound, channel: channel.channel, reader: readerTask!)
        self.link = link
        return link
    }

    private func receive(_ line: ByteBuffer) {
        guard let message = try? JSONValue.parse(Data(line.readableBytesView)) else { return }
        let messages: [JSONValue]
        if case .array(let elements) = message { messages = elements } else { messages = [message] }
        for message in messages { route(message) }
    }

    private func route(_ message: JSONValue) {
        if case .string(let method)? = message["method"] {
            guard case .number(let number)? = message["params"]?["subscription"],
                let continuation = subscriptions[Int(number)]
            else { return }
            if method == RPCMethod.locationUpdate, let fixValue = message["params"]?["fix"] {
                if let fix = try? WireCoding.decodeFix(fixValue) { continuation.yield(fix) }
            } else if method == RPCMethod.locationError, let errorValue = message["params"]?["error"] {
                subscriptions.removeValue(forKey: Int(number))
                continuation.finish(throwing: RPCCodec.decodeError(errorValue).locationError)
            }
            return
        }
        let outcome: Result<JSONValue, LocationError>
        if let errorValue = message["error"] {
            outcome = .failure(RPCCodec.decodeError(errorValue).locationError)
        } else {
            outcome = .success(message["result"] ?? .null)
        }
        guard case .number(let rawID)? = message["id"] else {
            // An answer without id (tooManyClients, a parse error): it
            // concerns everyone waiting on this connection.
            if case .failure(let error) = outcome { failAll(error) }
            return
        }
        guard let entry = pending.removeValue(forKey: Int(rawID)) else { return }
        switch entry {
        case .sent:
            early[Int(rawID)] = outcome
        case .call(let continuation):
            continuation.resume(returning: outcome)
        case .watch(let continuation):
            switch outcome {
            case .success(let result):
                guard case .number(let number)? = result["subscription"] else {
                    continuation.finish(throwing: LocationError.internalError("watch answered without a subscription"))
                    return
                }
                let subscription = Int(number)
                subscriptions[subscription] = continuation
                continuation.onTermination = { [weak self] _ in
                    Task { await self?.unwatch(subscription) }
                }
            case .failure(let error):
                continuation.finish(throwing: error)
            }
        }
    }

    private func disconnected() {
        link = nil
        failAll(.daemonUnreachable("the daemon closed the connection"))
    }

    private func failAll(_ error: LocationError) {
        let waiting = pending
        pending.removeAll()
        for (id, entry) in waiting {
            switch entry {
            case .sent: early[id] = .failure(error)
            case .call(let continuation): continuation.resume(returning: .failure(error))
            case .watch(let continuation): continuation.finish(throwing: error)
            }
        }
        let watching = subscriptions
        subscriptions.removeAll()
        for continuation in watching.values { continuation.finish(throwing: error) }
    }

    private static func explain(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }
}
