import ArgumentParser
import Foundation
import PetSpotHotPath

extension PetSpotBench {
    /// Micro-benchmarks of the request hot path, in-process: nanoseconds per
    /// operation (median of rounds) of ``HotPathCases``. The package-benchmark
    /// suite in Benchmarks/ times the same cases with allocation counts.
    struct Micro: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "micro", abstract: "Time the hot path: request decode, params, policy, fix encode.")

        @Option(help: "Iterations per round.") var iterations = 200_000
        @Option(help: "Rounds (the median is printed).") var rounds = 5

        func run() throws {
            print("| operation | ns/op (median of \(rounds)) |\n|---|---:|")
            var sink = 0
            for (name, body) in HotPathCases().all {
                var samples: [Double] = []
                for _ in 0..<rounds {
                    let start = Sockets.monotonicNanos()
                    for _ in 0..<iterations { sink &+= body() }
                    samples.append(Double(Sockets.monotonicNanos() - start) / Double(iterations))
                }
                samples.sort()
                print("| \(name) | \(String(format: "%.0f", samples[samples.count / 2])) |")
            }
            // Consumed, so the operations cannot be optimised away.
            if sink == Int.min { print(sink) }
        }
    }
}
