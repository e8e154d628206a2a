import Metrics
import PetSpotProtocol

/// The daemon's counters, through swift-metrics: whatever backend the
/// process bootstraps (Prometheus, statsd, a test kit) receives them; with
/// none they cost nothing. Created once, so the hot path only increments.
///
/// - `petspot_requests_total{method}`: requests by method (`unknown` for others).
/// - `petspot_errors_total{code}`: error answers by JSON-RPC code.
struct DaemonMetrics: Sendable {
    private let requests: [String: Counter]
    private let unknownMethod: Counter
    private let errors: [Int: Counter]
    private let otherError: Counter

    /// Creates the counters in `factory` (default: the bootstrapped metrics system).
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        var requests: [String: Counter] = [:]
        for method in RPCMethod.allCases {
            requests[method.rawValue] = Counter(
                label: "petspot_requests_total", dimensions: [("method", method.rawValue)], factory: factory)
        }
        self.requests = requests
        unknownMethod = Counter(label: "petspot_requests_total", dimensions: [("method", "unknown")], factory: factory)
        var errors: [Int: Counter] = [:]
        let codes = [
            -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32010, -32011, -32012, -32030, -32040,
        ]
        for code in codes {
            errors[code] = Counter(
                label: "petspot_errors_total", dimensions: [("code", String(code))], factory: factory)
        }
        self.errors = errors
        otherError = Counter(label: "petspot_errors_total", dimensions: [("code", "other")], factory: factory)
    }

    /// Counts a request for `method`.
    func request(_ method: String) { (requests[method] ?? unknownMethod).increment() }

    /// Counts an error answer.
    func error(_ error: RPCError) { (errors[error.code] ?? otherError).increment() }
}
