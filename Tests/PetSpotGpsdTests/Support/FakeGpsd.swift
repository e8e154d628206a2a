import Foundation
import Synchronization

/// gpsd's greeting, as 3.22 sends it to a new client.
enum GpsdJSON {
    static let greeting = [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyFAKE0","activated":"2026-01-01T00:00:00.000Z"}]}"#,
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
    ]

    /// A TPV line; `fields` is spliced in raw, so tests can write NaN or garbage.
    static func tpv(device: String = "/dev/ttyFAKE0", _ fields: String) -> String {
        #"{"class":"TPV","device":"\#(device)",\#(fields)}"#
    }
}

/// A synthetic NMEA 0183 receiver for real gpsd to read over `tcp://`:
/// GGA + RMC once per `interval`, with or without a fix.
enum SyntheticReceiver {
    /// `$…*CS` with the XOR checksum.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
    }

    /// One epoch at 52.2297 N, 21.0122 E (Warsaw), or without a fix.
    static func epoch(second: Int, hasFix: Bool) -> String {
        let time = String(format: "1200%02d.00", second % 60)
        if hasFix {
            return sentence("GPGGA,\(time),5213.7820,N,02100.7320,E,1,08,0.9,100.0,M,30.0,M,,")
                + sentence("GPRMC,\(time),A,5213.7820,N,02100.7320,E,0.0,0.0,010126,,,A")
        }
        return sentence("GPGGA,\(time),,,,,0,00,99.9,,M,,M,,")
            + sentence("GPRMC,\(time),V,,,,,,,010126,,,N")
    }

    static let latitude = 52.2297
    static let longitude = 21.0122

    /// A feed server; `hasFix` is read before every epoch.
    static func serve(interval: Duration = .milliseconds(100), hasFix: Locked<Bool>) throws -> LineServer {
        try LineServer { connection in
            var second = 0
            while connection.send(epoch(second: second, hasFix: hasFix.value)) {
                second += 1
                if !connection.idle(for: interval) { return }
            }
        }
    }
}
