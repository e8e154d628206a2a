import Benchmark
import PetSpotHotPath

/// The work a `location.get` costs besides the socket (``HotPathCases``,
/// shared with `petspot-bench micro`), with allocation counts.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], warmupIterations: 1000,
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    for (name, run) in HotPathCases().all {
        Benchmark(name) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(run()) }
        }
    }
}
