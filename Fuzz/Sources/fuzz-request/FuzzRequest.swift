import Dispatch
import Logging
import NIOPosix
import PetSpotDaemon
import PetSpotFixHub
import PetSpotLocation
import PetSpotProtocol
import PetSpotStaticSource

/// The daemon's request path without the socket: every `\n`-separated line
/// of the input is decoded by ``RPCCodec/decode(line:)`` (lines over the
/// daemon's limit are cut there, as the frame decoder would refuse them),
/// handled by the real ``Dispatcher`` over a static source with open access,
/// and its answer encoded back to a line. A session without a socket cannot
/// watch: `location.watch` is answered with its error, like any other.
///
/// Every line is also read by ``LocationGetLine`` (the daemon's quick reading
/// of `location.get`): whatever it accepts, the general reading must read
/// as the same `location.get` with the same id and request, or the target
/// stops (a finding).
let hub = StaticFixProducer(
    position: try! StaticPosition(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 25, altitude: 34)
).makePosition()
let dispatcher = Dispatcher(
    hub: hub,
    policy: OpenAccess(),
    registry: ClientRegistry(capacity: 64),
    logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }),
    fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub)
)

/// Holds the lines across the detached task (the input buffer is only valid during the call).
final class Lines: @unchecked Sendable {
    let lines: [[UInt8]]
    init(_ lines: [[UInt8]]) { self.lines = lines }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let lines = Lines(
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
            Array($0.prefix(RPCCodec.maximumLineLength))
        })
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let session = ClientSession(
            id: ConnectionID(1), identity: ClientIdentity(uid: 1000, gid: 1000, pid: 4242, user: "fuzz"))
        for line in lines.lines {
            let inbound = RPCCodec.decode(line: line)
            if let quick = LocationGetLine.read(line) {
                guard case .single(.request(let request)) = inbound, request.method == "location.get",
                    request.id == quick.id, (try? RPCParams.locationGet(request.params)) == quick.request
                else { fatalError("LocationGetLine accepted what the general reading does not: \(line)") }
            }
            _ = await dispatcher.reply(to: line, session: session).text
        }
        session.close()
        done.signal()
    }
    done.wait()
    return 0
}
