import PetSpotJSON
import PetSpotLocation

/// Reads the common `location.get` request line without building a
/// ``JSONValue``: `{"jsonrpc":"2.0","id":7,"method":"location.get","params":{"maxAge":5}}`,
/// members in any order, any JSON whitespace.
///
/// It accepts a strict subset of what ``RPCCodec/decode(line:)`` followed
/// by ``RPCParams/locationGet(_:)`` accept, with the same meaning: the same
/// id and the same ``LocationRequest``. Anything else gives `nil`, and the
/// line goes the general way, which answers or refuses it as before (an
/// error names its field there, never here). Outside the subset: a string
/// with an escape or a byte outside printable ASCII, a `null` or non-number
/// parameter, an id other than a number or a plain string, a repeated or
/// unknown member, a value out of range, a batch. Tests compare it with the
/// general way on generated lines (`LocationGetLineTests`) and the request
/// fuzz target does on every input.
public struct LocationGetLine: Equatable, Sendable {
    /// The request's id (`.number` or `.string`).
    public var id: JSONValue
    /// The request, defaults applied.
    public var request: LocationRequest

    public init(id: JSONValue, request: LocationRequest) {
        self.id = id
        self.request = request
    }

    /// The line's request, or `nil` when it is not in the subset.
    public static func read(_ line: UnsafeRawBufferPointer) -> LocationGetLine? {
        var scanner = Scanner(bytes: line)
        return scanner.line()
    }

    /// The line's request, or `nil` when it is not in the subset.
    public static func read(_ line: some Collection<UInt8>) -> LocationGetLine? {
        if let read = line.withContiguousStorageIfAvailable({ read(UnsafeRawBufferPointer($0)) }) { return read }
        return Array(line).withUnsafeBytes { read($0) }
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipWhitespace() {
            while let byte = current,
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                    || byte == UInt8(ascii: "\r")
            {
                index += 1
            }
        }

        private mutating func expect(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// A string of printable ASCII without escapes, as its byte range.
        private mutating func plainString() -> Range<Int>? {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            while let byte = current {
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        private func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
            guard range.count == text.utf8CodeUnitCount else { return false }
            let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            return UnsafeRawBufferPointer(rebasing: bytes[range]).elementsEqual(expected)
        }

        /// A JSON number, read as the general parser reads it (``JSONNumber``).
        private mutating func number() -> Double? {
            skipWhitespace()
            return try? JSONNumber.read(bytes, at: &index).get()
        }

        /// `{ member, … }` calling `member` with each key's range; `false` when malformed or refused.
        private mutating func object(_ member: (inout Scanner, Range<Int>) -> Bool) -> Bool {
            guard expect(UInt8(ascii: "{")) else { return false }
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return true
            }
            while true {
                guard let key = plainString(), expect(UInt8(ascii: ":")), member(&self, key) else { return false }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return true
                default: return false
                }
            }
        }

        mutating func line() -> LocationGetLine? {
            var id: JSONValue?
            var sawVersion = false
            var sawMethod = false
            var sawParams = false
            var maxAge: Double?
            var timeout: Double?
            var minMode: Double?
            var desiredAccuracy: Double?
            let read = object { scanner, key in
                if scanner.equals(key, "jsonrpc") {
                    guard !sawVersion, let value = scanner.plainString(), scanner.equals(value, "2.0") else {
                        return false
                    }
                    sawVersion = true
                } else if scanner.equals(key, "id") {
                    guard id == nil else { return false }
                    scanner.skipWhitespace()
                    if scanner.current == UInt8(ascii: "\"") {
                        guard let value = scanner.plainString() else { return false }
                        id = .string(
                            String(decoding: UnsafeRawBufferPointer(rebasing: scanner.bytes[value]), as: UTF8.self))
                    } else {
                        guard let value = scanner.number() else { return false }
                        id = .number(value)
                    }
                } else if scanner.equals(key, "method") {
                    guard !sawMethod, let value = scanner.plainString(), scanner.equals(value, "location.get") else {
                        return false
                    }
                    sawMethod = true
                } else if scanner.equals(key, "params") {
                    guard !sawParams else { return false }
                    sawParams = true
                    return scanner.object { scanner, name in
                        func take(_ slot: inout Double?) -> Bool {
                            guard slot == nil, let value = scanner.number() else { return false }
                            slot = value
                            return true
                        }
                        if scanner.equals(name, "maxAge") { return take(&maxAge) }
                        if scanner.equals(name, "timeout") { return take(&timeout) }
                        if scanner.equals(name, "minMode") { return take(&minMode) }
                        if scanner.equals(name, "desiredAccuracy") { return take(&desiredAccuracy) }
                        return false
                    }
                } else {
                    return false
                }
                return true
            }
            skipWhitespace()
            guard read, index == bytes.count, sawVersion, sawMethod, let id else { return nil }
            if let maxAge, !LocationGetBounds.maxAge.contains(maxAge) { return nil }
            if let timeout, !LocationGetBounds.timeout.contains(timeout) { return nil }
            if let desiredAccuracy, !LocationGetBounds.desiredAccuracy.contains(desiredAccuracy) { return nil }
            var mode: FixMode?
            if let minMode {
                guard minMode == minMode.rounded(), Double(LocationGetBounds.minMode.lowerBound) <= minMode,
                    minMode <= Double(LocationGetBounds.minMode.upperBound)
                else { return nil }
                mode = FixMode(rawValue: Int(minMode))
            }
            return LocationGetLine(
                id: id,
                request: LocationRequest(
                    maxAge: maxAge.map(Duration.fromSeconds) ?? LocationRequest.defaultMaxAge,
                    timeout: timeout.map(Duration.fromSeconds) ?? LocationRequest.defaultTimeout,
                    minMode: mode, desiredAccuracy: desiredAccuracy))
        }
    }
}
