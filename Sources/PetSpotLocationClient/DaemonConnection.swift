import FoundationEssentials
import NIOCore
import NIOExtras
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Synchronization

/// One connection to the daemon at a time: sends requests with fresh ids,
/// matches answers to callers, routes `location.update` notifications to
/// their subscriptions. Connects lazily; when the connection ends (the
/// daemon closed it, or ``close()``) what was waiting on it gets
/// `daemonUnreachable`, and the next request opens a new one.
///
/// A request whose caller stops waiting (its task cancelled: the caller's
/// own cancellation, or ``LocationClient``'s answer limit) is forgotten
/// alone: its caller gets `daemonUnreachable("cancelled")` at once, a late
/// answer is ignored (a late watch's subscription is unwatched), and the
/// connection stays open for everything else on it.
///
/// Every request is bounded twice (``Limits``): getting it written, then
/// getting its answer. The answer limit starts at the write, so a request
/// whose connection was slow to open is still sent, and "no answer" always
/// means the daemon was asked.
///
/// Why an actor, unlike the daemon (a class over a `Mutex` where nothing
/// waits): work here waits under exclusion. Opening the connection is
/// awaited by every request that comes meanwhile (one client, one
/// connection), and a request's entry must be in place before its line is
/// written and its answer can come. Its tasks, each with an owner:
/// - one **reader** per connection (``Link/reader``): reads the daemon's
///   lines until the connection ends; cancelled when the connection goes;
/// - the **connect attempt** (`connecting`), awaited by the requests that
///   wait for it, and cleared when it ends;
/// - one **errand runner** (`errandRunner`), for what is asked of the actor
///   from outside it with no one to wait for the result (a cancelled
///   caller's request forgotten, a subscription unwatched when its stream
///   ends or its late answer comes): a stream of ``Errand``s that it runs in
///   order; it ends with the connection object (deinit finishes the stream).
actor DaemonConnection {
    /// A request sent, or being sent, and not answered yet.
    struct Pending {
        /// The serial of the connection it went out on: only that connection's end fails it.
        var link: Int
        /// For `location.watch`: where the subscription's fixes go once it is answered.
        var watch: WatchStream?
        /// The caller, once it waits; an answer that comes before is kept in `early`.
        var waiter: CheckedContinuation<Result<JSONValue, LocationError>, Never>?
    }

    private struct Link {
        /// Numbers the connections of this client: 1, 2, ...
        var serial: Int
        var outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var channel: any Channel
        var reader: Task<Void, Never>
    }

    /// A subscription, by the connection it lives on (the daemon numbers
    /// subscriptions per connection) and its number.
    struct SubscriptionKey: Hashable {
        var link: Int
        var number: Int
    }

    /// What the actor is asked to do from outside it, run by the errand runner.
    enum Errand: Sendable {
        /// A request's caller stopped waiting (its task was cancelled).
        case forget(Int)
        /// A subscription's stream ended: unwatch it.
        case unwatch(SubscriptionKey)
        /// A forgotten watch was answered late: end the subscription it opened.
        case sendUnwatch(Int, link: Int)
    }

    /// Where errands are posted, from any thread.
    nonisolated let errands: AsyncStream<Errand>.Continuation
    private let postedErrands: AsyncStream<Errand>
    /// Runs the errands, started with the first request.
    private var errandRunner: Task<Void, Never>?

    /// What a request whose caller stopped waiting ends with.
    static let cancelled = LocationError.daemonUnreachable("cancelled")

    let socketPath: String
    /// The connection new requests go out on; nil before the first and after it ends.
    private var link: Link?
    private var linkSerial = 0
    private var readerTask: Task<Void, Never>?
    /// Connections this client closed itself (``close()``), until their reader ends.
    private var closedHere: Set<Int> = []
    /// The connection being opened, while it is.
    private var connecting: Task<Result<Link, LocationError>, Never>?
    private var nextID = 0
    var pending: [Int: Pending] = [:]
    var early: [Int: Result<JSONValue, LocationError>] = [:]
    var subscriptions: [SubscriptionKey: AsyncThrowingStream<LocationFix, any Error>.Continuation] = [:]
    /// Watches forgotten before they were answered, by request id: the
    /// connection each went out on. A late answer's subscription is unwatched.
    var abandonedWatches: [Int: Int] = [:]
    /// Watches one connection may leave unanswered before it is taken as
    /// wedged and closed (the next request opens a new one): what bounds
    /// ``abandonedWatches`` on a connection that lives on.
    static let maxAbandonedWatches = 32

    init(socketPath: String) {
        self.socketPath = socketPath
        (postedErrands, errands) = AsyncStream.makeStream(of: Errand.self)
    }

    deinit {
        errands.finish()
        link?.reader.cancel()
    }

    /// Starts the errand runner, once.
    private func runErrands() {
        guard errandRunner == nil else { return }
        errandRunner = Task { [weak self, postedErrands] in
            for await errand in postedErrands {
                guard let self else { return }
                await self.run(errand)
            }
        }
    }

    private func run(_ errand: Errand) async {
        switch errand {
        case .forget(let id): forget(id)
        case .unwatch(let key): await unwatch(key)
        case .sendUnwatch(let number, let link): await sendUnwatch(number, on: link)
        }
    }

    /// How long a request may take to reach the daemon, and how long its
    /// answer may then take. The two are counted apart: the answer limit
    /// starts once the request line is written, so a slow connect or a busy
    /// machine never uses up a call's answer limit before it was asked (a
    /// request is never dropped unwritten because its answer limit passed).
    struct Limits: Sendable {
        /// Connecting (when there is no connection) and writing the line.
        var send: Duration
        /// Waiting for the answer, from the moment the line was written.
        var answer: Duration
    }

    /// Calls `method` and waits for its answer (or the end of the
    /// connection, a limit, or the task's cancellation: see the type's description).
    func call(_ method: RPCMethod, params: JSONValue?, within limits: Limits) async -> Result<JSONValue, LocationError>
    {
        await request(method, params: params, watch: nil, within: limits)
    }

    /// Starts a watch whose fixes go to `watch`'s stream, and waits for the
    /// daemon's answer: the subscription is in place when this returns
    /// success; a refusal has already finished the stream. Cancelled or past
    /// its limit, the watch is forgotten as a call is (the stream is left to the caller).
    func watch(
        _ options: WatchOptions, into watch: WatchStream, within limits: Limits
    ) async -> Result<JSONValue, LocationError> {
        await request(.locationWatch, params: RPCParams.encode(options), watch: watch, within: limits)
    }

    /// How many times ``close()`` has closed a connection: a watch that
    /// resubscribes after its connection ended does not when this moved
    /// (the client closed it on purpose).
    private(set) var closes = 0

    /// Closes the connection now: what waits on it gets `daemonUnreachable`
    /// once its reader sees the end; the next request opens a new one at once.
    func close() {
        closes += 1
        guard let link else { return }
        self.link = nil
        closedHere.insert(link.serial)
        link.channel.close(promise: nil)
    }

    /// Sends, then waits; each phase has its own limit (``Limits``).
    private func request(
        _ method: RPCMethod, params: JSONValue?, watch: WatchStream?, within limits: Limits
    ) async -> Result<JSONValue, LocationError> {
        runErrands()
        nextID += 1
        let id = nextID
        let socketPath = self.socketPath
        let sent = await withDeadline(.now + limits.send) {
            .failure(.daemonUnreachable("sending the request to \(socketPath) did not finish within \(limits.send)"))
        } operation: {
            await self.send(id, method, params: params, watch: watch)
        }
        if case .failure(let error) = sent {
            // Written just as the limit passed, its entry may be there: a late answer is ignored.
            forget(id)
            return .failure(error)
        }
        let answer = await withDeadline(.now + limits.answer) {
            .failure(.daemonUnreachable("no answer from the daemon within \(limits.answer)"))
        } operation: {
            await self.answer(to: id)
        }
        if case .failure = answer { forget(id) }
        return answer
    }

    /// Waits for the answer to request `id`, sent already.
    private func answer(to id: Int) async -> Result<JSONValue, LocationError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiter in
                // Runs on this actor before it suspends: nothing can come
                // between the checks below and the registration.
                if let answer = early.removeValue(forKey: id) { return waiter.resume(returning: answer) }
                if Task.isCancelled {
                    forget(id)
                    return waiter.resume(returning: .failure(Self.cancelled))
                }
                guard pending[id] != nil else {
                    return waiter.resume(returning: .failure(.internalError("request \(id) lost its entry")))
                }
                pending[id]?.waiter = waiter
            }
        } onCancel: {
            errands.yield(.forget(id))
        }
    }

    /// Sends request `id`, its entry registered first (the answer may come
    /// before the write returns).
    ///
    /// A connection that has ended under us (the daemon went away, or
    /// ``close()``, and its reader has not caught up yet) is never written
    /// to: it is seen inactive, or the writer refuses the line, and the
    /// request goes out once more on a new connection. A refused line never
    /// left, so it cannot run twice. Cancelled (the caller's cancellation,
    /// or the send limit), the line is not written.
    private func send(
        _ id: Int, _ method: RPCMethod, params: JSONValue?, watch: WatchStream?
    ) async -> Result<Int, LocationError> {
        let line = RPCCodec.line(RPCCodec.request(id: .number(Double(id)), method: method.rawValue, params: params))
        for attempt in 1...2 {
            let link: Link
            do throws(LocationError) {
                link = try await connected()
            } catch {
                return .failure(error)
            }
            pending[id] = Pending(link: link.serial, watch: watch)
            do {
                try await link.outbound.write(ByteBuffer(string: line))
                return .success(id)
            } catch {
                pending.removeValue(forKey: id)
                early.removeValue(forKey: id)
                if Task.isCancelled { return .failure(Self.cancelled) }
                drop(link)
                if attempt == 2 { break }
            }
        }
        return .failure(.daemonUnreachable("the connection to \(socketPath) broke"))
    }

    /// The connection, opened if there is none (or it has ended). Requests
    /// made while it is being opened wait for that one: one client, one connection.
    private func connected() async throws(LocationError) -> Link {
        if let link {
            if link.channel.isActive { return link }
            drop(link)
        }
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

    /// Stops sending on `link` (it has ended, or a write to it failed);
    /// its reader fails what is still waiting on it.
    private func drop(_ link: Link) {
        if self.link?.serial == link.serial { self.link = nil }
        link.channel.close(promise: nil)
    }

    /// How long a connect refused for a full listen backlog waits in the
    /// listener's queue (``QueuedConnect``). The same bound as
    /// ``LocationClient/sendLimit``: the caller's limit ends the wait first
    /// when it is shorter.
    static let busyBacklogWait: Duration = LocationClient.sendLimit

    private func open() async throws(LocationError) -> Link {
        if let link { return link }
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        @Sendable func initialize(_ channel: any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> {
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: 1 << 20))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        do {
            do {
                channel = try await bootstrap.connect(unixDomainSocketPath: socketPath, channelInitializer: initialize)
            } catch let error as IOError where error.errnoCode == EAGAIN {
                // The backlog is full: wait in the listener's queue instead.
                let socket = try await QueuedConnect.connect(socketPath, within: Self.busyBacklogWait)
                channel = try await bootstrap.withConnectedSocket(socket, channelInitializer: initialize)
            }
        } catch {
            throw .daemonUnreachable("cannot connect to \(socketPath): \(Self.explain(error))")
        }
        linkSerial += 1
        let serial = linkSerial
        // The reader owns the channel for its whole life (executeThenClose)
        // and hands the writer back once it is running. What it reads and
        // its end are reported with its connection's serial.
        let outbound = await withCheckedContinuation {
            (ready: CheckedContinuation<NIOAsyncChannelOutboundWriter<ByteBuffer>, Never>) in
            let reader = Task { [weak self] in
                do {
                    try await channel.executeThenClose { inbound, outbound in
                        ready.resume(returning: outbound)
                        for try await line in inbound {
                            await self?.receive(line, on: serial)
                        }
                    }
                } catch {}
                await self?.disconnected(serial)
            }
            readerTask = reader
        }
        let link = Link(serial: serial, outbound: outbound, channel: channel.channel, reader: readerTask!)
        self.link = link
        return link
    }

    /// The caller of request `id` stopped waiting: it gets `cancelled`, a
    /// late answer is ignored (a watch's is unwatched). No-op once answered.
    private func forget(_ id: Int) {
        early.removeValue(forKey: id)
        guard let entry = pending.removeValue(forKey: id) else { return }
        entry.waiter?.resume(returning: .failure(Self.cancelled))
        guard entry.watch != nil else { return }
        abandonedWatches[id] = entry.link
        if let link, link.serial == entry.link,
            abandonedWatches.values.count(where: { $0 == entry.link }) > Self.maxAbandonedWatches
        {
            closedHere.insert(link.serial)
            drop(link)
        }
    }

    /// Ends a subscription (best effort): on its own connection, never on a new one.
    private func unwatch(_ key: SubscriptionKey) async {
        guard subscriptions.removeValue(forKey: key) != nil else { return }
        await sendUnwatch(key.number, on: key.link)
    }

    private func sendUnwatch(_ subscription: Int, on serial: Int) async {
        guard let link, link.serial == serial, link.channel.isActive else { return }
        nextID += 1
        let line = RPCCodec.line(
            RPCCodec.request(
                id: .number(Double(nextID)), method: RPCMethod.locationUnwatch.rawValue,
                params: ["subscription": .number(Double(subscription))]))
        try? await link.outbound.write(ByteBuffer(string: line))
    }

    /// Connection `serial` has ended: fails what was waiting on it. A newer
    /// connection, if one is open already, is left alone.
    private func disconnected(_ serial: Int) {
        if link?.serial == serial { link = nil }
        let detail =
            closedHere.remove(serial) != nil ? "the connection was closed" : "the daemon closed the connection"
        failAll(on: serial, .daemonUnreachable(detail))
        abandonedWatches = abandonedWatches.filter { $0.value != serial }
    }

    private static func explain(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        return "\(error)"
    }
}
