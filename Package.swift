// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode with the upcoming features
/// that Hummingbird and swift-log use to keep dependencies explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOExtras", package: "swift-nio-extras"),
]
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "petspot-location",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PetSpotLocation", targets: ["PetSpotLocation"]),
        .library(name: "PetSpotLocationMock", targets: ["PetSpotLocationMock"]),
        .library(name: "PetSpotSimulatedSource", targets: ["PetSpotSimulatedSource"]),
        .library(name: "PetSpotFixHub", targets: ["PetSpotFixHub"]),
        .library(name: "PetSpotStaticSource", targets: ["PetSpotStaticSource"]),
        .library(name: "PetSpotGpsd", targets: ["PetSpotGpsd"]),
        .library(name: "PetSpotLocationClient", targets: ["PetSpotLocationClient"]),
        .library(name: "PetSpotDaemon", targets: ["PetSpotDaemon"]),
        .library(name: "PetSpotReport", targets: ["PetSpotReport"]),
        .library(name: "PetSpotPhotoCleaning", targets: ["PetSpotPhotoCleaning"]),
        // Also products for the benchmarks (Benchmarks/) and the fuzz targets (Fuzz/).
        .library(name: "PetSpotProtocol", targets: ["PetSpotProtocol"]),
        .library(name: "PetSpotPolicy", targets: ["PetSpotPolicy"]),
        .library(name: "PetSpotJSON", targets: ["PetSpotJSON"]),
        .library(name: "PetSpotSettings", targets: ["PetSpotSettings"]),
        .library(name: "PetSpotConfiguration", targets: ["PetSpotConfiguration"]),
        .library(name: "PetSpotOutbox", targets: ["PetSpotOutbox"]),
        .library(name: "PetSpotDelivery", targets: ["PetSpotDelivery"]),
        .library(name: "PetSpotPOSIX", targets: ["PetSpotPOSIX"]),
        .executable(name: "petspot", targets: ["petspot"]),
        .executable(name: "petspot-locationd", targets: ["petspot-locationd"]),
        .executable(name: "petspot-location", targets: ["petspot-location"]),
        .executable(name: "petspot-report", targets: ["petspot-report"]),
        .executable(name: "petspot-kiosk", targets: ["petspot-kiosk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The kiosk's web UI. Hummingbird without its default traits: no swift-configuration (we read TOML
        // ourselves), no FullFoundation (its URL-encoded form dates; every program here stays on
        // FoundationEssentials, without ICU's data).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // MARK: Core (dependency-free)
        .target(name: "PetSpotLocation", swiftSettings: swiftSettings),
        .target(name: "PetSpotJSON", swiftSettings: swiftSettings),

        // MARK: Sources of fixes
        .target(
            name: "PetSpotFixHub",
            dependencies: ["PetSpotLocation"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotStaticSource", dependencies: ["PetSpotLocation", "PetSpotFixHub"],
            swiftSettings: swiftSettings),
        // The scripted walk the `simulated` source plays (production code).
        .target(
            name: "PetSpotSimulatedSource",
            dependencies: ["PetSpotLocation", "PetSpotFixHub", "PetSpotJSON"],
            swiftSettings: swiftSettings
        ),
        // The test double of LocationService, for client test suites.
        .target(
            name: "PetSpotLocationMock",
            dependencies: ["PetSpotLocation", "PetSpotFixHub", "PetSpotSimulatedSource"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CLibGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .target(
            name: "PetSpotGpsd",
            dependencies: [
                "PetSpotLinux", "PetSpotLocation", "PetSpotFixHub", "PetSpotJSON", "PetSpotPOSIX", "PetSpotSettings", "CLibGPS", logging,
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Daemon building blocks
        // The daemon's configuration as values (`[daemon]`, `[source]`, `[nmea]`, `[metrics]`): what the
        // TOML reader fills and the socket server, the NMEA socket and the gpsd reader read. No TOML here.
        .target(name: "PetSpotSettings", dependencies: ["PetSpotLocation", "PetSpotPolicy"], swiftSettings: swiftSettings),
        // The TOML reader and writer for those values, with their errors (which key, which line).
        .target(
            name: "PetSpotConfiguration",
            dependencies: [
                "PetSpotJSON", "PetSpotLocation", "PetSpotPolicy", "PetSpotPOSIX", "PetSpotSettings",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: swiftSettings
        ),
        // POSIX pieces several modules need: the user/group databases, bounded reads of small files. No C code.
        .target(name: "PetSpotPOSIX", swiftSettings: swiftSettings),
        // Linux and glibc pieces: the owner of a loopback TCP connection (netlink sock_diag), glibc's heap
        // figures and returning its free pages to the kernel (malloc_trim, madvise).
        .target(name: "PetSpotLinux", dependencies: ["PetSpotPOSIX", "CSockDiag", "CMalloc"], swiftSettings: swiftSettings),
        .target(name: "PetSpotPolicy", dependencies: ["PetSpotLocation"], swiftSettings: swiftSettings),
        // A fix as NMEA 0183 sentences (GeoClue's nmea-socket source, gpsd).
        .target(name: "PetSpotNMEA", dependencies: ["PetSpotLocation"], swiftSettings: swiftSettings),
        // The Prometheus exposition written for node_exporter's textfile collector (daemon and kiosk).
        .target(
            name: "PetSpotMetricsFile",
            dependencies: [
                "PetSpotLocation", "PetSpotPOSIX", logging, .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // systemd integration without libsystemd: sd_notify, watchdog, socket activation.
        .target(name: "PetSpotSystemd", dependencies: ["PetSpotPOSIX"], swiftSettings: swiftSettings),
        .target(
            name: "PetSpotProtocol", dependencies: ["PetSpotLocation", "PetSpotJSON"], swiftSettings: swiftSettings),
        .target(
            name: "PetSpotDaemon",
            dependencies: [
                "PetSpotLinux", "PetSpotLocation", "PetSpotFixHub", "PetSpotJSON", "PetSpotNMEA",
                "PetSpotPolicy", "PetSpotPOSIX", "PetSpotProtocol", "PetSpotSettings", "PetSpotSystemd", "CProcessPin",
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ] + nio,
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotLocationClient",
            dependencies: [
                "PetSpotLocation", "PetSpotProtocol", "PetSpotJSON",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotReport", dependencies: ["PetSpotLocation", "PetSpotPOSIX"],
            swiftSettings: swiftSettings),
        // Report photos without metadata, upright, HEIC as JPEG (SPEC §7), and the drafts they are cleaned into
        // (PhotoDraftCache); the only importer of the two C targets, so the report's data types link neither.
        .target(
            name: "PetSpotPhotoCleaning", dependencies: ["CTurboJPEG", "CHeif", "PetSpotReport", "PetSpotPOSIX"],
            swiftSettings: swiftSettings),
        // Debian's SQLite, for the report outbox (PetSpotOutbox's `Database`).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),

        // MARK: Kiosk: configuration, report outbox, delivery to the backend (SPEC §8)
        .target(
            name: "PetSpotKioskConfiguration",
            dependencies: ["PetSpotConfiguration", "PetSpotSettings", "PetSpotDelivery", "PetSpotLocation"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotOutbox",
            dependencies: [
                "PetSpotReport", "PetSpotPOSIX", "CSQLite",
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotDelivery",
            dependencies: [
                "PetSpotOutbox", "PetSpotPOSIX", "PetSpotLocation", logging,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // The kiosk station's web app (SPEC §7 "The kiosk station"): routes, visits, pages.
        .target(
            name: "PetSpotKiosk",
            dependencies: [
                "PetSpotLinux", "PetSpotReport", "PetSpotPhotoCleaning", "PetSpotLocation", "PetSpotKioskConfiguration", "PetSpotOutbox",
                "PetSpotPOSIX", logging, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            // Resources/static is read at run time (PageRenderer), not declared as resources: SwiftPM's
            // resource accessor imports Foundation, and with it ICU's data.
            exclude: ["Resources"],
            swiftSettings: swiftSettings
        ),

        // MARK: Programs (libraries, so that each executable and the multi-call binary run the same code)
        .target(
            name: "PetSpotKioskApp",
            dependencies: [
                "PetSpotLinux", "PetSpotKiosk", "PetSpotPhotoCleaning", "PetSpotKioskConfiguration", "PetSpotConfiguration", "PetSpotSettings",
                "PetSpotOutbox", "PetSpotDelivery",
                "PetSpotLocationClient", "PetSpotReport", "PetSpotMetricsFile", "PetSpotPOSIX", argumentParser, logging,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // petspot-locationd as a library: the command line, the configuration
        // file, the sources, the assembly; also what the in-process tests run.
        .target(
            name: "PetSpotDaemonApp",
            dependencies: [
                "PetSpotDaemon", "PetSpotGpsd", "PetSpotConfiguration", "PetSpotSettings", "PetSpotFixHub",
                "PetSpotLocation", "PetSpotSimulatedSource", "PetSpotStaticSource", "PetSpotSystemd", "PetSpotPOSIX",
                "PetSpotPolicy", "PetSpotMetricsFile",
                argumentParser, logging,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotLocationCLI",
            dependencies: [
                "PetSpotLocationClient", "PetSpotLocation", "PetSpotProtocol", "PetSpotJSON", "PetSpotPOSIX",
                "PetSpotSettings", argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PetSpotReportCLI",
            dependencies: [
                "PetSpotReport", "PetSpotPhotoCleaning", "PetSpotLocationClient", "PetSpotLocation", "PetSpotLocationMock",
                "PetSpotSimulatedSource", "PetSpotOutbox", "PetSpotDelivery", "PetSpotKioskConfiguration",
                "PetSpotConfiguration", "PetSpotPOSIX", argumentParser, logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables (main.swift only)
        // What the Debian package installs: the daemon, and the three clients in one binary under each
        // name (SPEC §6 "Installing a station": one copy of the runtime, no ICU data).
        .executableTarget(
            name: "petspot",
            dependencies: [
                "PetSpotLocationCLI", "PetSpotReportCLI", "PetSpotKioskApp", "PetSpotPOSIX",
            ],
            swiftSettings: swiftSettings,
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),
        // Each program alone (development, tests, benchmarks).
        .executableTarget(
            name: "petspot-locationd",
            dependencies: ["PetSpotDaemonApp"],
            swiftSettings: swiftSettings,
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]
        ),
        .executableTarget(name: "petspot-location", dependencies: ["PetSpotLocationCLI"], swiftSettings: swiftSettings),
        .executableTarget(name: "petspot-report", dependencies: ["PetSpotReportCLI"], swiftSettings: swiftSettings),
        .executableTarget(name: "petspot-kiosk", dependencies: ["PetSpotKioskApp"], swiftSettings: swiftSettings),
        // glibc's <malloc.h> (malloc_trim), for the daemon's start-up memory release.
        .systemLibrary(name: "CMalloc"),
        // pidfd_open(2), which glibc offers only through variadic syscall(2): pinning a client's process.
        .systemLibrary(name: "CProcessPin"),
        // NETLINK_SOCK_DIAG's structures (<linux/inet_diag.h>): the kernel-known owner of a loopback TCP peer.
        .target(name: "CSockDiag"),

        // MARK: Tests
        .testTarget(name: "PetSpotLocationTests", dependencies: ["PetSpotLocation"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PetSpotJSONTests", dependencies: ["PetSpotJSON", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PetSpotNMEATests", dependencies: ["PetSpotNMEA", "PetSpotLocation"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PetSpotPOSIXTests", dependencies: ["PetSpotPOSIX"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PetSpotLinuxTests", dependencies: ["PetSpotLinux", "PetSpotPOSIX", "TestSupport", "CMalloc"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PetSpotFixHubTests",
            dependencies: [
                "PetSpotFixHub", "PetSpotLocation", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotStaticSourceTests",
            dependencies: ["PetSpotStaticSource", "PetSpotFixHub", "PetSpotLocation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotSimulatedSourceTests",
            dependencies: ["PetSpotSimulatedSource", "PetSpotLocation", "PetSpotFixHub", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotLocationMockTests",
            dependencies: [
                "PetSpotLocationMock", "PetSpotSimulatedSource", "PetSpotLocation", "PetSpotFixHub", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotGpsdTests",
            dependencies: [
                "CLibGPS", "PetSpotGpsd", "PetSpotFixHub", "PetSpotLocation", "PetSpotSettings", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotMetricsFileTests",
            dependencies: [
                "PetSpotMetricsFile", "TestSupport", logging,
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotConfigurationTests",
            dependencies: [
                "PetSpotLinux", "PetSpotConfiguration", "PetSpotSettings", "PetSpotPolicy", "PetSpotLocation", "PetSpotPOSIX", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotPolicyTests",
            dependencies: ["PetSpotPolicy", "PetSpotLocation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotProtocolTests",
            dependencies: ["PetSpotProtocol", "PetSpotLocation", "PetSpotJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotReportTests",
            dependencies: [
                "PetSpotReport", "PetSpotPhotoCleaning", "PetSpotReportCLI", "PetSpotLocation", "PetSpotLocationMock",
                "PetSpotSimulatedSource", "PetSpotFixHub", "petspot-report", "PhotoTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotPhotoCleaningTests",
            dependencies: ["PetSpotPhotoCleaning", "PetSpotReport", "PhotoTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotDaemonTests",
            dependencies: [
                "PetSpotLinux", "PetSpotDaemon", "PetSpotPolicy", "PetSpotLocation", "PetSpotProtocol", "PetSpotJSON", "TestSupport",
                "PetSpotFixHub", "PetSpotSimulatedSource", "PetSpotStaticSource", "PetSpotPOSIX",
                "DaemonTestSupport", "PetSpotDaemonApp", "PetSpotConfiguration", "PetSpotSettings", logging,
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotLocationClientTests",
            dependencies: [
                "PetSpotLocationClient", "PetSpotLocation", "PetSpotJSON", "PetSpotDaemon", "PetSpotPolicy",
                "PetSpotSettings", "DaemonTestSupport",
                "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotSystemdTests",
            dependencies: ["PetSpotSystemd", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotIntegrationTests",
            dependencies: [
                "TestSupport", "petspot-locationd", "petspot-location", "petspot-report", "petspot-kiosk",
                "petspot-test-enqueue-loop",
                "DeliveryTestSupport", "PetSpotOutbox", "PetSpotReport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotKioskConfigurationTests",
            dependencies: ["PetSpotKioskConfiguration", "PetSpotConfiguration", "PetSpotSettings", "PetSpotDelivery"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotOutboxTests",
            dependencies: [
                "PetSpotOutbox", "PetSpotReport", "DeliveryTestSupport", "TestSupport", "CSQLite",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotDeliveryTests",
            dependencies: [
                "PetSpotDelivery", "PetSpotOutbox", "PetSpotReport", "DeliveryTestSupport", "TestSupport", logging,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PetSpotKioskTests",
            dependencies: [
                "PetSpotKiosk", "PetSpotReport", "PetSpotPhotoCleaning", "PetSpotLocation", "PetSpotKioskConfiguration", "PetSpotOutbox",
                "PetSpotDelivery", "DeliveryTestSupport", "PhotoTestSupport", "TestSupport",
                logging, .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        // Real photos made in code (TurboJPEG, libheif's encoder) with metadata spliced in, and their pixels.
        .target(
            name: "PhotoTestSupport",
            dependencies: ["CTurboJPEG", "CHeif"],
            path: "Tests/PhotoTestSupport",
            swiftSettings: swiftSettings
        ),
        // Queues reports until killed (the outbox crash-consistency test kills it at random points).
        .executableTarget(
            name: "petspot-test-enqueue-loop",
            dependencies: ["PetSpotOutbox", "PetSpotReport", "DeliveryTestSupport"],
            path: "Tests/Helpers/EnqueueLoop",
            swiftSettings: swiftSettings
        ),
        // petspot-locationd's services run inside the test process (no binary), on a private socket.
        .target(
            name: "DaemonTestSupport",
            dependencies: [
                "TestSupport", "PetSpotDaemon", "PetSpotDaemonApp", "PetSpotConfiguration", "PetSpotSettings",
                "PetSpotPolicy", "PetSpotLocation", "PetSpotStaticSource",
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/DaemonTestSupport",
            swiftSettings: swiftSettings
        ),
        // The stand-in backend (Tests/Fixtures/receiver.py), report fixtures, a fast clock.
        .target(
            name: "DeliveryTestSupport",
            dependencies: ["TestSupport", "PetSpotReport", "PetSpotDelivery"],
            path: "Tests/DeliveryTestSupport",
            swiftSettings: swiftSettings
        ),
    ]
)
