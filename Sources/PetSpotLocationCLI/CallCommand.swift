import Glibc
import ArgumentParser
import FoundationEssentials
import PetSpotJSON
import PetSpotLocation
import PetSpotPOSIX
import PetSpotProtocol

/// `petspot-location call METHOD [--params JSON]`: one raw JSON-RPC request,
/// the daemon's response printed as it came (for operators and tests).
struct CallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send one JSON-RPC request and print the daemon's raw response line.",
        discussion: """
            Exit 0 when the response has a result; otherwise the exit code of its error
            (3 not authorized or forbidden, 4 no location, 1 invalid request or params).
            Examples:
              petspot-location call daemon.status
              petspot-location call authorization.reset --params '{"uid": 1000}'
            """)

    @Argument(help: "The method, e.g. authorization.status.")
    var method: String

    @Option(name: .long, help: "The params object, as JSON.")
    var params: String?

    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = DaemonSocket.defaultPath

    @Option(name: .long, help: "Seconds to wait for the response.")
    var timeout: Double = 30

    func run() throws {
        var parsedParams: JSONValue?
        if let params {
            guard let value = try? JSONValue.parse(Data(params.utf8)) else {
                throw CLIExit(code: CLIExit.usage, message: "petspot-location: --params is not valid JSON")
            }
            parsedParams = value
        }
        let request = RPCCodec.line(RPCCodec.request(id: 1, method: method, params: parsedParams))
        let line = try exchange(request)
        print(TerminalText.escapedJSONLine(line))
        guard let response = try? JSONValue.parse(Data(line.utf8)) else { return }
        if let error = response["error"] {
            let wire = RPCCodec.decodeError(error)
            if wire.code == RPCError.invalidParamsCode || wire.code == RPCError.invalidRequestCode
                || wire.code == RPCError.methodNotFoundCode
            {
                throw CLIExit(code: CLIExit.usage, message: "")
            }
            throw CLIExit(code: CLIExit(wire.locationError).code, message: "")
        }
    }

    /// Connects, sends `request`, and reads one line back.
    private func exchange(_ request: String) throws -> String {
        guard let address = UnixSocketAddress(path: socket) else {
            throw unreachable("\(socket): not a usable socket path")
        }
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try address.connectStream()
        } catch {
            throw unreachable("\(socket): \(error.reason)")
        }
        defer { close(descriptor) }
        do {
            try Descriptor.sendAll(descriptor, Array(request.utf8))
        } catch {
            throw unreachable("\(error)")
        }
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !received.contains(10) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw unreachable("no response within \(timeout) s") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw unreachable("the daemon closed the connection") }
            received.append(contentsOf: chunk[..<count])
        }
        let end = received.firstIndex(of: 10) ?? received.endIndex
        return String(decoding: received[..<end], as: UTF8.self)
    }

    private func unreachable(_ detail: String) -> CLIExit {
        CLIExit(LocationError.daemonUnreachable(detail))
    }
}
