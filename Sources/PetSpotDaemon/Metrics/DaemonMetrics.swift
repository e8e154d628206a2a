import Metrics
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Synchronization

/// The daemon's request counters, kept twice: through swift-metrics, so
/// whatever backend the process bootstraps (the Prometheus textfile,
/// a test kit) receives them (with none they cost nothing), and as plain
/// counts that `daemon.status` reports (``snapshot``). Created once, so the
/// hot path only increments (one relaxed atomic add each).
///
/// - `petspot_requests_total{method, outcome}`: requests answered, by method
///   (`unknown` for others) and outcome (`ok`, or `error` for an error answer).
/// - `petspot_errors_total{code}`: error answers by JSON-RPC code (`other` for others),
///   including lines that never named a method (unparseable, invalid).
/// - `petspot_authorizations_total{status}`: how requests for a position
///   were judged (`location.get`, `location.watch` and their re-checks), by status.
struct DaemonMetrics: Sendable {
    private let requests: [String: Outcomes]
    /// `location.get`'s, also kept apart: the hot path counts without hashing a name.
    private let locationGet: Outcomes
    private let unknownMethod: Outcomes
    private let errors: [Int: Tally]
    private let otherError: Tally
    /// By status, at ``slot(_:)`` (counted without hashing).
    private let authorizations: [Tally]

    /// A method's answers, by outcome.
    private struct Outcomes: Sendable {
        let ok: Tally
        let error: Tally

        init(_ method: String, factory: any MetricsFactory) {
            ok = Tally(
                Counter(
                    label: "petspot_requests_total", dimensions: [("method", method), ("outcome", "ok")],
                    factory: factory))
            error = Tally(
                Counter(
                    label: "petspot_requests_total", dimensions: [("method", method), ("outcome", "error")],
                    factory: factory))
        }

        var total: Int { ok.value + error.value }
    }

    /// The JSON-RPC error codes the daemon answers with (SPEC §5).
    static let errorCodes = [
        -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32010, -32011, -32012, -32030, -32040,
    ]

    /// Creates the counters in `factory` (default: the bootstrapped metrics system).
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        var requests: [String: Outcomes] = [:]
        for method in RPCMethod.allCases { requests[method.rawValue] = Outcomes(method.rawValue, factory: factory) }
        self.requests = requests
        locationGet = requests[RPCMethod.locationGet.rawValue]!
        unknownMethod = Outcomes("unknown", factory: factory)
        var errors: [Int: Tally] = [:]
        for code in Self.errorCodes {
            errors[code] = Tally(
                Counter(label: "petspot_errors_total", dimensions: [("code", String(code))], factory: factory))
        }
        self.errors = errors
        otherError = Tally(Counter(label: "petspot_errors_total", dimensions: [("code", "other")], factory: factory))
        authorizations = AuthorizationStatus.allCases.sorted { Self.slot($0) < Self.slot($1) }.map { status in
            Tally(
                Counter(
                    label: "petspot_authorizations_total", dimensions: [("status", status.rawValue)], factory: factory))
        }
    }

    /// Counts a request for `method` answered with a result.
    func answered(_ method: String) { (requests[method] ?? unknownMethod).ok.add() }

    /// Counts a `location.get` answered with a position.
    func answeredLocationGet() { locationGet.ok.add() }

    /// Counts a request for `method` answered with `error`.
    func failed(_ method: String, _ error: RPCError) {
        (requests[method] ?? unknownMethod).error.add()
        self.error(error)
    }

    /// Counts an error answer to a line that named no method.
    func error(_ error: RPCError) { (errors[error.code] ?? otherError).add() }

    /// Counts a judgement of a client's authorization.
    func judged(_ status: AuthorizationStatus) { authorizations[Self.slot(status)].add() }

    /// `status`'s place in ``authorizations``.
    private static func slot(_ status: AuthorizationStatus) -> Int {
        switch status {
        case .notDetermined: 0
        case .authorized: 1
        case .denied: 2
        case .restricted: 3
        }
    }

    /// The counts since start for `daemon.status`: `{"requests": {METHOD: N,
    /// "unknown": N}, "errors": {"CODE": N, "other": N}}`, every key present.
    var snapshot: JSONValue {
        var byMethod: [String: JSONValue] = ["unknown": .number(Double(unknownMethod.total))]
        for (method, outcomes) in requests { byMethod[method] = .number(Double(outcomes.total)) }
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
