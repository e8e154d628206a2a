import Glibc
import ArgumentParser
import Foundation
import Logging
import PetSpotDelivery
import PetSpotOutbox
import PetSpotReport

extension PetSpotBench {
    /// The delivery outbox: enqueue latency (photo fsynced with its
    /// directory, row committed with synchronous=FULL) and the drain rate of
    /// a full queue to the stand-in backend (Tests/Fixtures/receiver.py) on
    /// loopback. Printed, not asserted.
    struct OutboxHarness: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox",
            abstract: "Time enqueue (p50/p99) and the drain rate of queued reports to a local receiver.")

        @Option(help: "Reports timed one by one for the enqueue latency.") var enqueues = 1000
        @Option(help: "Reports queued, then drained to the receiver.") var drain = 10_000
        @Option(help: "Photo size in bytes.") var photoBytes = 20_000
        @Option(help: "Senders' max_in_flight values to drain with (comma-separated).") var inFlight = "1,4"
        @Option(help: "Directory for the outbox (default: a new one under /tmp; needs room for drain × photo).")
        var directory: String?
        @Option(help: "The receiver script.") var receiver = "Tests/Fixtures/receiver.py"

        func run() async throws {
            let root = try directory ?? makeTemporaryDirectory()
            defer { if directory == nil { try? FileManager.default.removeItem(atPath: root) } }
            let photo = OutboxBenchFixtures.photo(bytes: photoBytes)
            let photoPath = root + "/photo.jpg"
            try Data(photo).write(to: URL(fileURLWithPath: photoPath))
            print("## petspot-bench outbox\n")
            print(
                "\(ProcessInfo.processInfo.activeProcessorCount) CPUs; photo \(photoBytes) bytes; outbox on \(root)\n")

            // Enqueue latency.
            let outbox = try Outbox.open(directory: root + "/enqueue")
            var samples: [Double] = []
            for index in 0..<enqueues {
                let report = OutboxBenchFixtures.report(index: index, photoBytes: photo.count)
                let start = Sockets.monotonicNanos()
                try await outbox.enqueue(report: report, photoFile: photoPath)
                samples.append(Double(Sockets.monotonicNanos() - start) / 1000)
            }
            samples.sort()
            // The floor on the same disk in the same run: what durability costs without the
            // queue (the photo written and fsynced, its directory fsynced), one file per sample.
            let floorDirectory = root + "/floor"
            try FileManager.default.createDirectory(atPath: floorDirectory, withIntermediateDirectories: true)
            var floor: [Double] = []
            for index in 0..<enqueues {
                let start = Sockets.monotonicNanos()
                try Self.writeDurably(photo, to: floorDirectory + "/\(index).jpg", directory: floorDirectory)
                floor.append(Double(Sockets.monotonicNanos() - start) / 1000)
            }
            floor.sort()
            func percentile(_ values: [Double], _ p: Double) -> Double {
                values[min(values.count - 1, Int(Double(values.count) * p))]
            }
            print("| enqueue (\(enqueues) reports, one at a time) | p50 | p99 | max |\n|---|---:|---:|---:|")
            print(
                String(
                    format: "| photo write + fsync, dir fsync, row commit | %.2f ms | %.2f ms | %.2f ms |",
                    percentile(samples, 0.5) / 1000, percentile(samples, 0.99) / 1000, samples.last! / 1000))
            print(
                String(
                    format:
                        "| reference: the photo written + fsynced, dir fsynced (no queue) | %.2f ms | %.2f ms | %.2f ms |",
                    percentile(floor, 0.5) / 1000, percentile(floor, 0.99) / 1000, floor.last! / 1000))
            print(
                String(
                    format: "| enqueue / reference | %.2f× | %.2f× | |\n",
                    percentile(samples, 0.5) / percentile(floor, 0.5),
                    percentile(samples, 0.99) / percentile(floor, 0.99)))
            try? FileManager.default.removeItem(atPath: floorDirectory)
            try outbox.close()

            // Drain rate.
            print(
                "| drain \(drain) queued reports to receiver.py (loopback) | max_in_flight | seconds | reports/s |\n|---|---:|---:|---:|"
            )
            for value in inFlight.split(separator: ",").compactMap({ Int($0) }) {
                let directory = root + "/drain-\(value)"
                let queue = try Outbox.open(directory: directory)
                let fillStart = Sockets.monotonicNanos()
                for index in 0..<drain {
                    try await queue.enqueue(
                        report: OutboxBenchFixtures.report(index: index, photoBytes: photo.count), photoFile: photoPath)
                }
                let fillSeconds = Double(Sockets.monotonicNanos() - fillStart) / 1e9
                let server = try BenchReceiver(script: receiver, directory: directory + "-receiver")
                defer { server.stop() }
                try "bench-token\n".write(toFile: directory + ".token", atomically: true, encoding: .utf8)
                var settings = DeliverySettings(endpoint: server.endpoint, tokenFile: directory + ".token")
                settings.maxInFlight = value
                settings.retryInitial = .milliseconds(50)
                settings.retryMax = .milliseconds(500)
                var logger = Logger(label: "bench")
                logger.logLevel = .error
                let sender = DeliverySender(outbox: queue, settings: settings, logger: logger)
                let start = Sockets.monotonicNanos()
                let result = try await sender.drain(within: 3600)
                let seconds = Double(Sockets.monotonicNanos() - start) / 1e9
                let delivered = result.summary.delivered
                print(
                    String(
                        format: "| delivered %d of %d (queued in %.1f s) | %d | %.1f | %.0f |",
                        delivered, drain, fillSeconds, value, seconds, Double(delivered) / seconds))
                try queue.close()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }

        /// `bytes` to a new file at `path`, fsynced, then `directory` fsynced.
        static func writeDurably(_ bytes: [UInt8], to path: String, directory: String) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw BenchError("cannot create \(path)") }
            defer { close(fd) }
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(fd) == 0 else { throw BenchError("cannot write \(path)") }
            let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard dir >= 0 else { throw BenchError("cannot open \(directory)") }
            defer { close(dir) }
            guard fsync(dir) == 0 else { throw BenchError("cannot fsync \(directory)") }
        }

        private func makeTemporaryDirectory() throws -> String {
            var template = Array("/tmp/petspot-bench-outbox.XXXXXX".utf8CString)
            guard let path = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
            return String(cString: path)
        }
    }
}

/// receiver.py in its light mode (no files per request).
struct BenchReceiver {
    let process: ManagedProcess
    let endpoint: String

    init(script: String, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = try ManagedProcess(
            name: "receiver.py", executable: "/usr/bin/env",
            arguments: [
                "python3", script, "--dir", directory, "--light", "--token", "bench-token", "--lifetime", "3600",
            ],
            pin: nil, output: directory + "/log")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: directory + "/port", encoding: .utf8), let port = Int(text) {
                endpoint = "http://127.0.0.1:\(port)"
                return
            }
            usleep(20_000)
        }
        process.stop()
        throw BenchError("\(script) did not start (see \(directory)/log); run from the package root")
    }

    func stop() { process.stop() }
}

enum OutboxBenchFixtures {
    /// A JPEG-looking photo of `bytes` bytes.
    static func photo(bytes: Int) -> [UInt8] {
        var photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        var state: UInt64 = 0x1234_5678
        while photo.count < bytes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            photo.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return photo
    }

    static func report(index: Int, photoBytes: Int) -> FoundPetReport {
        let id = UUID()
        return FoundPetReport(
            id: id, createdAt: Date(),
            photo: FoundPetReport.Photo(
                file: "\(id.uuidString.lowercased()).jpg", format: .jpeg, mimeType: "image/jpeg", width: 1024,
                height: 768, bytes: photoBytes),
            details: FoundPetDetails(
                date: CalendarDate(year: 2026, month: 1, day: 30)!, species: .cat, race: "European shorthair",
                gender: .female, age: index % 20, latitude: 52.2297, longitude: 21.0122, chipNumber: nil,
                petName: nil, description: "Bench report \(index)"),
            contact: FoundPetContact(
                phone: "600123456", email: "finder@example.com", reward: nil, caregiverPhone: "7654321",
                address: "ul. Kwiatowa 7"))
    }
}
