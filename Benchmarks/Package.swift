// swift-tools-version: 6.1
import PackageDescription

// Micro-benchmarks of petspot-locationd's request hot path, with
// package-benchmark (ordo-one/benchmark). A package of its own so the root
// package's `swift build` (and CI) never builds the benchmark harness.
//
//     cd Benchmarks && swift package benchmark
let package = Package(
    name: "petspot-location-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "petspot-location", path: ".."),
        // The malloc interposer gives allocation counts; the Linux runtime
        // interposer trait stays off (its package is not needed then).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPath",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PetSpotHotPath", package: "petspot-location"),
            ],
            path: "Benchmarks/HotPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
