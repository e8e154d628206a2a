/// Splits the bytes read from gpsd into lines, each at most ``maximumLength`` bytes.
///
/// gpsd ends every JSON report with `\r\n`; a bare `\n` ends a line too, and a
/// `\r` before the `\n` is dropped. Bytes are appended as they arrive from
/// the socket, so a line may come in pieces and one read may hold several
/// lines. A line longer than the limit is not kept: its bytes are dropped as
/// they arrive and, once its `\n` comes, it is handed over as
/// ``Piece/overlong(length:)``. Memory stays bounded whatever the peer sends.
///
/// ```swift
/// var lines = GpsdLineBuffer()
/// lines.append(bytesJustRead) { piece in … }
/// ```
public struct GpsdLineBuffer: Sendable {
    /// The longest line libgps 3.22 itself could receive: its socket buffer
    /// is `GPS_JSON_RESPONSE_MAX * 2` (8192) bytes (`libgps_sock.c`). gpsd's
    /// reports can exceed `GPS_JSON_RESPONSE_MAX` (4096): 3.22 sends SKY
    /// lines of 5334 bytes for the unicore-um621 capture.
    public static let libgpsMaximumLength = 8192

    /// What comes out of the buffer.
    public enum Piece: Sendable, Equatable {
        /// A complete line without its `\r\n` or `\n`.
        case line([UInt8])
        /// A line longer than ``GpsdLineBuffer/maximumLength``, discarded;
        /// `length` counts its bytes before the `\n`.
        case overlong(length: Int)
    }

    /// The longest line kept, not counting its `\r\n`.
    public let maximumLength: Int
    /// The start of the current line (at most `maximumLength + 1` bytes, a `\r` included).
    private var pending: [UInt8] = []
    /// While the current line is being skipped: how many of its bytes went by.
    private var skipped: Int?

    /// Creates an empty buffer.
    /// - Parameter maximumLength: the longest line kept (default ``libgpsMaximumLength``).
    public init(maximumLength: Int = GpsdLineBuffer.libgpsMaximumLength) {
        precondition(maximumLength >= 0, "negative line length limit")
        self.maximumLength = maximumLength
    }

    /// How many bytes of an unfinished line the buffer has seen.
    public var unfinishedCount: Int { skipped ?? pending.count }

    /// Appends bytes and hands over every line they complete, in order.
    /// - Parameters:
    ///   - bytes: the bytes just read.
    ///   - body: called once per completed line.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, _ body: (Piece) throws -> Void) rethrows {
        try appendLines(bytes) { view in
            switch view {
            case .line(let line): try body(.line(Array(line)))
            case .overlong(let length): try body(.overlong(length: length))
            }
        }
    }

    /// A completed line as ``appendLines(_:_:)`` lends it: the bytes are
    /// valid only during the call that receives them.
    public enum View {
        /// A complete line without its `\r\n` or `\n`.
        case line(UnsafeRawBufferPointer)
        /// As ``Piece/overlong(length:)``.
        case overlong(length: Int)
    }

    /// ``append(_:_:)`` without a copy per line (issue 40: the reader's
    /// path): a line that lies whole in `bytes` is lent straight from them,
    /// one that came in pieces from the buffer, which is then reused, so a
    /// line costs no allocation either way.
    /// - Parameters:
    ///   - bytes: the bytes just read.
    ///   - body: called once per completed line, with bytes it must not keep.
    public mutating func appendLines(_ bytes: UnsafeRawBufferPointer, _ body: (View) throws -> Void) rethrows {
        var start = 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                keep(rest)
                return
            }
            let head = UnsafeRawBufferPointer(rebasing: rest[..<newline])
            start += newline - rest.startIndex + 1
            if skipped == nil, pending.isEmpty {
                // The whole line is here: lent from the read, never copied.
                try body(Self.finished(head, maximumLength: maximumLength))
                continue
            }
            keep(head)
            if let count = skipped {
                skipped = nil
                try body(.overlong(length: count))
                continue
            }
            defer { pending.removeAll(keepingCapacity: true) }
            try pending.withUnsafeBytes { try body(Self.finished($0, maximumLength: maximumLength)) }
        }
    }

    /// Appends the start (or more) of a line, switching to skipping once it is too long.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        if let count = skipped {
            skipped = count + bytes.count
        } else if pending.count + bytes.count > maximumLength + 1 {
            // + 1: room for the `\r` of a line of exactly maximumLength bytes.
            skipped = pending.count + bytes.count
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    /// What a line's bytes before its `\n` amount to: the line without a
    /// final `\r`, or over-long (`length` counts the `\r`).
    private static func finished(_ bytes: UnsafeRawBufferPointer, maximumLength: Int) -> View {
        var line = bytes
        if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        return line.count > maximumLength ? .overlong(length: bytes.count) : .line(line)
    }
}
