import Benchmark
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol

/// The work a `location.get` costs besides the socket: decoding the line,
/// reading its params, the policy decision, and encoding the answer.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], warmupIterations: 1000,
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    let line = Array(#"{"jsonrpc":"2.0","id":42,"method":"location.get","params":{"maxAge":5}}"#.utf8)
    let params: JSONValue = ["maxAge": 5]
    let identity = ClientIdentity(uid: 1000, gid: 1000, pid: 4242, user: "kiosk", groups: ["kiosk", "users"])
    let policy = Policy(
        defaultStatus: .authorized, prompt: .allow,
        rules: [
            PolicyRule(user: "guest", status: .denied),
            PolicyRule(group: "wheel", status: .authorized, accuracy: .full),
            PolicyRule(uid: 1000, status: .authorized, accuracy: .reduced),
        ])
    let fix = LocationFix(
        coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), altitude: 110, horizontalAccuracy: 8,
        verticalAccuracy: 12, speed: 1.4, course: 90, timestamp: UTCTimestamp(secondsSince1970: 1_795_000_000.1),
        mode: .threeD, source: .simulated)

    Benchmark("RPCCodec.decode location.get") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(RPCCodec.decode(line: line)) }
    }
    Benchmark("RPCParams.locationGet") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try? RPCParams.locationGet(params)) }
    }
    Benchmark("Policy.resolve 3 rules") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(policy.resolve(for: identity, remembered: nil)) }
    }
    Benchmark("fix to response line") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(RPCCodec.line(RPCCodec.response(id: 42, result: WireCoding.encode(fix))))
        }
    }
}
