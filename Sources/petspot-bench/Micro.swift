import ArgumentParser
import Foundation
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol

extension PetSpotBench {
    /// Micro-benchmarks of the request hot path, in-process: nanoseconds per
    /// operation (median of rounds). The package-benchmark suite in
    /// Benchmarks/ measures the same operations with allocation counts.
    struct Micro: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "micro", abstract: "Time the hot path: request decode, params, policy, fix encode.")

        @Option(help: "Iterations per round.") var iterations = 200_000
        @Option(help: "Rounds (the median is printed).") var rounds = 5

        func run() throws {
            let cases = MicroCases()
            print("| operation | ns/op (median of \(rounds)) |\n|---|---:|")
            for (name, body) in cases.all {
                var samples: [Double] = []
                for _ in 0..<rounds {
                    let start = Sockets.monotonicNanos()
                    for _ in 0..<iterations { body() }
                    samples.append(Double(Sockets.monotonicNanos() - start) / Double(iterations))
                }
                samples.sort()
                print("| \(name) | \(String(format: "%.0f", samples[samples.count / 2])) |")
            }
        }
    }
}

/// The operations a `location.get` costs besides the socket.
struct MicroCases {
    static let requestLine = Array(
        #"{"jsonrpc":"2.0","id":42,"method":"location.get","params":{"maxAge":5}}"#.utf8)
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

    nonisolated(unsafe) static var sink = 0

    var all: [(String, () -> Void)] {
        [
            (
                "RPCCodec.decode (location.get line)",
                {
                    if case .single = RPCCodec.decode(line: Self.requestLine) { Self.sink &+= 1 }
                }
            ),
            (
                "RPCParams.locationGet",
                { [params] in
                    if (try? RPCParams.locationGet(params)) != nil { Self.sink &+= 1 }
                }
            ),
            (
                "Policy.resolve (3 rules)",
                { [policy, identity] in
                    if policy.resolve(for: identity, remembered: nil).status == .authorized { Self.sink &+= 1 }
                }
            ),
            (
                "fix → response line (WireCoding.encode + RPCCodec.line)",
                { [fix] in
                    Self.sink &+= RPCCodec.line(RPCCodec.response(id: 42, result: WireCoding.encode(fix))).utf8.count
                }
            ),
        ]
    }
}
