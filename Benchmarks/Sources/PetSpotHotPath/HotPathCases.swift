import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol

/// The work a `location.get` costs besides the socket, as named operations:
/// decoding the request line, reading its params, the policy decision, and
/// encoding the answer. One set of inputs and operations for both harnesses
/// that time them: `petspot-bench micro` and the package-benchmark suite in
/// Benchmarks/.
public struct HotPathCases: Sendable {
    public static let requestLine = Array(
        #"{"jsonrpc":"2.0","id":42,"method":"location.get","params":{"maxAge":5}}"#.utf8)
    public let params: JSONValue = ["maxAge": 5]
    public let identity = ClientIdentity(uid: 1000, gid: 1000, pid: 4242, user: "kiosk", groups: ["kiosk", "users"])
    public let policy = Policy(
        defaultStatus: .authorized, prompt: .allow,
        rules: [
            PolicyRule(user: "guest", status: .denied),
            PolicyRule(group: "wheel", status: .authorized, accuracy: .full),
            PolicyRule(uid: 1000, status: .authorized, accuracy: .reduced),
        ])
    public let fix = LocationFix(
        coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), altitude: 110, horizontalAccuracy: 8,
        verticalAccuracy: 12, speed: 1.4, course: 90, timestamp: UTCTimestamp(secondsSince1970: 1_795_000_000.1),
        mode: .threeD, source: .simulated)

    public init() {}

    /// Each operation returns a number taken from its result, so the
    /// harness can consume it and the work cannot be optimised away.
    public var all: [(name: String, run: @Sendable () -> Int)] {
        let params = self.params
        let policy = self.policy
        let identity = self.identity
        let fix = self.fix
        let answer = GetAnswer(fix: fix)
        let now = ContinuousClock.now
        return [
            (
                "RPCCodec.decode (location.get line)",
                {
                    if case .single = RPCCodec.decode(line: Self.requestLine) { return 1 }
                    return 0
                }
            ),
            ("RPCParams.locationGet", { (try? RPCParams.locationGet(params)) != nil ? 1 : 0 }),
            (
                "Policy.resolve (3 rules)",
                { policy.resolve(for: identity, remembered: nil).status == .authorized ? 1 : 0 }
            ),
            (
                "fix → response line (WireCoding.encode + RPCCodec.line)",
                { RPCCodec.line(RPCCodec.response(id: 42, result: WireCoding.encode(fix))).utf8.count }
            ),
            // What the daemon's immediate path does instead (issue 16).
            (
                "LocationGetLine.read (location.get line, decode + params)",
                { LocationGetLine.read(Self.requestLine) != nil ? 1 : 0 }
            ),
            (
                "GetAnswer.line (the fix serialized once, id and age spliced)",
                { answer.line(id: 42, at: now).count }
            ),
        ]
    }
}
