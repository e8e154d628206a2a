import Metrics
import PetSpotJSON
import PetSpotProtocol
import Synchronization

/// The daemon's request counters, kept twice: through swift-metrics, so
/// whatever backend the process bootstraps (Prometheus, statsd, a test kit)
/// receives them (with none they cost nothing), and as plain counts that
/// `daemon.status` reports (``snapshot``). Created once, so the hot path only
/// increments (one relaxed atomic add each).
///
/// - `petspot_requests_total{method}`: requests by method (`unknown` for others).
/// - `petspot_errors_total{code}`: error answers by JSON-RPC code (`other` for others).
struct DaemonMetrics: Sendable {
    private let requests: [String: Tally]
    private let unknownMethod: Tally
    private let errors: [Int: Tally]
    private let otherError: Tally

    /// The JSON-RPC error codes the daemon answers with (SPEC §5).
    static let errorCodes = [
        -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32010, -32011, -32012, -32030, -32040,
    ]

    /// Creates the counters in `factory` (default: the bootstrapped metrics system).
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        var requests: [String: Tally] = [:]
        for method in RPCMethod.allCases {
            requests[method.rawValue] = Tally(
                Counter(label: "petspot_requests_total", dimensions: [("method", method.rawValue)], factory: factory))
        }
        self.requests = requests
        unknownMethod = Tally(
            Counter(label: "petspot_requests_total", dimensions: [("method", "unknown")], factory: factory))
        var errors: [Int: Tally] = [:]
        for code in Self.errorCodes {
            errors[code] = Tally(
                Counter(label: "petspot_errors_total", dimensions: [("code", String(code))], factory: factory))
        }
        self.errors = errors
        otherError = Tally(Counter(label: "petspot_errors_total", dimensions: [("code", "other")], factory: factory))
    }

    /// Counts a request for `method`.
    func request(_ method: String) { (requests[method] ?? unknownMethod).add() }

    /// Counts an error answer.
    func error(_ error: RPCError) { (errors[error.code] ?? otherError).add() }

    /// The counts since start for `daemon.status`: `{"requests": {METHOD: N,
    /// "unknown": N}, "errors": {"CODE": N, "other": N}}`, every key present.
    var snapshot: JSONValue {
        var byMethod: [String: JSONValue] = ["unknown": .number(Double(unknownMethod.value))]
        for (method, tally) in requests { byMethod[method] = .number(Double(tally.value)) }
        var byCode: [String: JSONValue] = ["other": .number(Double(otherError.value))]
        for (code, tally) in errors { byCode[String(code)] = .number(Double(tally.value)) }
        return ["requests": .object(byMethod), "errors": .object(byCode)]
    }

    /// One swift-metrics counter and its count.
    final class Tally: Sendable {
        private let counter: Counter
        private let count = Atomic<Int>(0)

        init(_ counter: Counter) { self.counter = counter }

        func add() {
            count.wrappingAdd(1, ordering: .relaxed)
            counter.increment()
        }

        var value: Int { count.load(ordering: .relaxed) }
    }
}
