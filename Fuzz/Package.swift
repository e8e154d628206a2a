// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for the parsers and the dispatcher (docs/ROBUSTNESS.md).
///
/// A separate package so the root `swift build` / `swift test` never builds
/// them. Build and run with `scripts/fuzz`, which passes
/// `--sanitize fuzzer --sanitize address`; libFuzzer provides `main`, so
/// each target is one file without a Swift entry point.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .unsafeFlags(["-parse-as-library"]),
]

/// SwiftPM names a path dependency after its directory, whatever the
/// checkout is called (e.g. a CI clone), so the root's identity is taken from
/// this manifest's location.
let rootIdentity = String(#filePath.split(separator: "/").dropLast(2).last ?? "petspot-location")
let root: (String) -> Target.Dependency = { .product(name: $0, package: rootIdentity) }

let package = Package(
    name: "petspot-fuzz",
    products: [
        .executable(name: "fuzz-request", targets: ["fuzz-request"]),
        .executable(name: "fuzz-config", targets: ["fuzz-config"]),
        .executable(name: "fuzz-scenario", targets: ["fuzz-scenario"]),
        .executable(name: "fuzz-gpsd", targets: ["fuzz-gpsd"]),
        .executable(name: "fuzz-photo", targets: ["fuzz-photo"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "fuzz-request",
            dependencies: [
                root("PetSpotDaemon"), root("PetSpotProtocol"), root("PetSpotStaticSource"), root("PetSpotLocation"),
                root("PetSpotFixHub"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "fuzz-config", dependencies: [root("PetSpotConfiguration")], swiftSettings: swiftSettings),
        .executableTarget(
            name: "fuzz-scenario", dependencies: [root("PetSpotSimulatedSource")], swiftSettings: swiftSettings),
        .executableTarget(
            name: "fuzz-gpsd", dependencies: [root("PetSpotGpsd"), root("PetSpotLocation")],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "fuzz-photo", dependencies: [root("PetSpotReport"), root("PetSpotPhotoCleaning")],
            swiftSettings: swiftSettings),
    ]
)
