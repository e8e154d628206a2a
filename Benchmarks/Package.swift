// swift-tools-version: 6.1
import PackageDescription

// The benchmarks, a package of their own so the root package's `swift build`
// (and CI) never builds them:
//
// - `petspot-bench`: the performance benchmark (load generator, Unix-socket
//   floor server, gpsd and fan-out harnesses, outbox bench; see README
//   "Performance"). `scripts/bench` builds it in release and runs it.
// - `HotPath`: micro-benchmarks of the request hot path with
//   package-benchmark (ordo-one/benchmark):
//
//       cd Benchmarks && swift package benchmark
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let root = "petspot-location"

let package = Package(
    name: "petspot-location-benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "petspot-bench", targets: ["petspot-bench"])
    ],
    dependencies: [
        .package(name: root, path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // The malloc interposer gives allocation counts; the Linux runtime
        // interposer trait stays off (its package is not needed then).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // epoll for the floor server and the load generator.
        .systemLibrary(name: "CEpoll"),
        // The request hot path's operations, timed by `petspot-bench micro` and HotPath.
        .target(
            name: "PetSpotHotPath",
            dependencies: [
                .product(name: "PetSpotProtocol", package: root), .product(name: "PetSpotJSON", package: root),
                .product(name: "PetSpotLocation", package: root), .product(name: "PetSpotPolicy", package: root),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "petspot-bench",
            dependencies: [
                "PetSpotHotPath", "CEpoll",
                .product(name: "PetSpotLocation", package: root), .product(name: "PetSpotOutbox", package: root),
                .product(name: "PetSpotDelivery", package: root), .product(name: "PetSpotReport", package: root),
                .product(name: "PetSpotPOSIX", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HotPath",
            dependencies: [
                "PetSpotHotPath",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/HotPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
