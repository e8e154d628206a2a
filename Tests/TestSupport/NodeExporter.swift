import Foundation

import Glibc

/// A free TCP port on loopback (bound, read, closed: another process may take it first, rarely).
public func freeLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// An HTTP GET over loopback through python3's urllib (no HTTP client of our own); the body, or `nil`.
public func loopbackGet(_ url: String) -> String? {
    let script =
        "import sys, urllib.request\nsys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())"
    guard let run = try? ChildProcess.run("/usr/bin/python3", ["-c", script, url], timeout: 60), run.status == 0
    else { return nil }
    return run.stdout
}

/// GETs `url` until `accept` takes the body (another process's state has
/// no signal to wait on); that body, or `nil` once `seconds` have passed.
public func loopbackPoll(_ url: String, within seconds: Double, until accept: (String) -> Bool) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let body = loopbackGet(url), accept(body) { return body }
        usleep(200_000)
    }
    return loopbackGet(url).flatMap { accept($0) ? $0 : nil }
}

/// Debian's real `prometheus-node-exporter` with only its textfile
/// collector, reading `collector`, on a free loopback port.
public final class NodeExporter: @unchecked Sendable {
    public static let executable = "/usr/bin/prometheus-node-exporter"
    /// A daemon's `[metrics]` table writing into its own folder (the collector's, for the tests) every second.
    public static let metricsTable = "[metrics]\ntextfile = \"{dir}/petspot.prom\"\ninterval = 1\n"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let port: Int
    public let child: ChildProcess
    /// Its `/metrics`.
    public var url: String { "http://127.0.0.1:\(port)/metrics" }

    public init(collector: String) throws {
        port = freeLoopbackPort()
        child = try ChildProcess(
            Self.executable,
            [
                "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
                "--collector.textfile.directory=\(collector)",
            ])
    }

    public func stop() {
        child.signal(SIGTERM)
        child.wait(timeout: 10)
    }

    /// One scrape, or `nil`.
    public func scrape() -> String? { loopbackGet(url) }

    /// Scrapes until `accept` takes the exposition; that exposition, or `nil`.
    public func poll(within seconds: Double, until accept: (String) -> Bool) -> String? {
        loopbackPoll(url, within: seconds, until: accept)
    }

    /// The value of the sample `name{labels}` (exactly as exposed), if present.
    public static func sample(_ exposition: String, _ series: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap {
            Double($0.dropFirst(series.count + 1))
        }
    }
}
