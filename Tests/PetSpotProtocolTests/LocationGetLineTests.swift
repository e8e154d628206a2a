import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

/// ``LocationGetLine`` must accept only lines the general way
/// (``RPCCodec/decode(line:)`` then ``RPCParams/locationGet(_:)``) reads as
/// a `location.get`, with the same id and request; it may decline any line.
@Suite("LocationGetLine: the quick reading of location.get agrees with the general way")
struct LocationGetLineTests {
    /// The general way's reading of `line`, or `nil` when it is not a `location.get` with an id and valid params.
    static func general(_ line: [UInt8]) -> LocationGetLine? {
        guard case .single(.request(let request)) = RPCCodec.decode(line: line),
            request.method == "location.get", let id = request.id,
            let options = try? RPCParams.locationGet(request.params)
        else { return nil }
        return LocationGetLine(id: id, request: options)
    }

    static let accepted: [String] = [
        #"{"jsonrpc":"2.0","id":7,"method":"location.get"}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":5}}"#,
        #"{"method":"location.get","params":{"timeout":2,"maxAge":0.25},"id":"g-1","jsonrpc":"2.0"}"#,
        " { \"jsonrpc\" : \"2.0\" ,\t\"id\" : -3 , \"method\":\"location.get\" , \"params\" : { } } ",
        #"{"jsonrpc":"2.0","id":1e3,"method":"location.get","params":{"minMode":3,"desiredAccuracy":50}}"#,
        #"{"jsonrpc":"2.0","id":123456789012345678,"method":"location.get","params":{"maxAge":86400}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"location.get\"}\r",
        #"{"jsonrpc":"2.0","id":-0,"method":"location.get","params":{"timeout":300,"minMode":2.0}}"#,
    ]

    static let declined: [String] = [
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","id":8}"#,  // repeated member
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":5,"maxAge":6}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.watch"}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.g\u0065t"}"#,  // an escape
        #"{"jsonrpc":"2.0","id":null,"method":"location.get"}"#,
        #"{"jsonrpc":"2.0","method":"location.get"}"#,  // a notification
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":null}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":-1}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"timeout":301}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"minMode":2.5}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"minMode":4}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"other":1}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":[5]}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","extra":true}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get"} x"#,
        #"[{"jsonrpc":"2.0","id":7,"method":"location.get"}]"#,
        #"{"jsonrpc":"1.0","id":7,"method":"location.get"}"#,
        #"{"jsonrpc":"2.0","id":07,"method":"location.get"}"#,
        #"{"jsonrpc":"2.0","id":{"a":1},"method":"location.get"}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":1e999}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":\"caf\u{e9}\",\"method\":\"location.get\"}",
        #"{"jsonrpc":"2.0","id":7,"method":"location.get""#,
        "",
    ]

    @Test(arguments: accepted)
    func readsTheCommonShapesAsTheGeneralWayDoes(_ line: String) throws {
        let quick = try #require(LocationGetLine.read(Array(line.utf8)))
        #expect(quick == Self.general(Array(line.utf8)))
    }

    @Test(arguments: declined)
    func declinesWhatItDoesNotFullyUnderstand(_ line: String) {
        #expect(LocationGetLine.read(Array(line.utf8)) == nil)
    }

    /// Every prefix, every one-byte deletion and every one-byte replacement
    /// (by a byte that matters to JSON) of the accepted lines: whatever the
    /// quick reading accepts, the general way reads the same.
    @Test func neverDisagreesOnMutatedLines() {
        let bytes: [UInt8] = Array(#" {}[]:,"\-+.0123456789eE2nulltrue"#.utf8) + [0x0A, 0x09, 0xC3, 0x7F, 0x00]
        var checked = 0
        var acceptedCount = 0
        for text in Self.accepted {
            let line = Array(text.utf8)
            var variants: [[UInt8]] = (0...line.count).map { Array(line[..<$0]) }
            for index in line.indices {
                var deleted = line
                deleted.remove(at: index)
                variants.append(deleted)
                for byte in bytes where byte != line[index] {
                    var replaced = line
                    replaced[index] = byte
                    variants.append(replaced)
                }
            }
            for variant in variants {
                checked += 1
                guard let quick = LocationGetLine.read(variant) else { continue }
                acceptedCount += 1
                #expect(quick == Self.general(variant), "\(String(decoding: variant, as: UTF8.self))")
            }
        }
        // Many variants are still valid requests (another id, another number):
        // the comparison ran on accepted lines, not only on refusals.
        #expect(checked > 10_000)
        #expect(acceptedCount > 500)
    }
}
