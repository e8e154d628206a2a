import ArgumentParser
import PetSpotLocation
import PetSpotLocationClient
import PetSpotProtocol

/// `petspot-location watch`: positions as they come.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print positions as the daemon delivers them (one per line with --json).",
        discussion: """
            Stops after --count updates, on Ctrl-C, or when authorization is lost (exit 3). \
            A daemon restart does not stop it: the gap is noted on standard error, and the watch \
            resumes with the same options once the daemon answers again.
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("distance-filter"), help: "Only positions at least this many metres from the last one.")
    var distanceFilter: Double?

    @Option(name: .long, help: "At most one position per this many seconds.")
    var interval: Double?

    @Option(name: .long, help: "Stop after this many positions.")
    var count: Int?

    func validate() throws {
        if let distanceFilter, !(distanceFilter.isFinite && distanceFilter >= 0) {
            throw ValidationError("--distance-filter must be 0 or more metres")
        }
        if let interval, !(interval.isFinite && interval >= WatchOptions.minimumIntervalSeconds) {
            throw ValidationError("--interval must be at least \(WatchOptions.minimumIntervalSeconds) seconds")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let service = client.makeClient()
        let options = WatchOptions(distanceFilter: distanceFilter, interval: interval.map(Duration.fromSeconds))
        var received = 0
        do {
            for try await event in service.watch(options) {
                switch event {
                case .fix(let fix):
                    print(client.json ? Output.json(WireCoding.encode(fix)) : Output.describe(fix))
                    received += 1
                    if let count, received >= count { return }
                case .interrupted(let error):
                    Output.note("the daemon went away (\(error)); watching again once it is back")
                case .resumed:
                    Output.note("watching again")
                }
            }
        } catch let error as LocationError {
            throw CLIExit(error)
        }
    }
}
