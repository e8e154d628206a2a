import Testing

@testable import PetSpotGpsd

/// ``GpsdLineBuffer``: how socket reads become lines, without a socket.
@Suite("gpsd byte stream to lines")
struct GpsdLineBufferTests {
    /// Feeds `chunks` one after the other and collects what comes out.
    static func pieces(
        _ chunks: [String], maximumLength: Int = GpsdLineBuffer.libgpsMaximumLength
    )
        -> [GpsdLineBuffer.Piece]
    {
        var buffer = GpsdLineBuffer(maximumLength: maximumLength)
        var pieces: [GpsdLineBuffer.Piece] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { buffer.append($0) { pieces.append($0) } }
        }
        return pieces
    }

    static func line(_ text: String) -> GpsdLineBuffer.Piece { .line(Array(text.utf8)) }

    @Test func severalLinesInOneRead() {
        #expect(Self.pieces(["{\"a\":1}\r\n{\"b\":2}\r\n{\"c\""]) == [Self.line("{\"a\":1}"), Self.line("{\"b\":2}")])
    }

    @Test func lineSplitAcrossReads() {
        #expect(Self.pieces(["{\"cla", "ss\":\"TPV\"", "}\r", "\n"]) == [Self.line("{\"class\":\"TPV\"}")])
    }

    @Test func crlfAndBareLineFeedEndings() {
        #expect(
            Self.pieces(["a\r\nb\nc\r\r\n\n"]) == [Self.line("a"), Self.line("b"), Self.line("c\r"), Self.line("")])
    }

    @Test func unfinishedLineIsHeldBack() {
        var buffer = GpsdLineBuffer()
        var count = 0
        Array("{\"class\":".utf8).withUnsafeBytes { buffer.append($0) { _ in count += 1 } }
        #expect(count == 0)
        #expect(buffer.unfinishedCount == 9)
    }

    @Test func lineOfExactlyTheLimitIsKept() {
        let limit = String(repeating: "x", count: 8)
        #expect(Self.pieces([limit + "\r\n"], maximumLength: 8) == [Self.line(limit)])
        #expect(Self.pieces([limit + "\n"], maximumLength: 8) == [Self.line(limit)])
        #expect(Self.pieces([limit, "\r", "\n"], maximumLength: 8) == [Self.line(limit)])
    }

    @Test func overlongLineIsDiscardedAndTheNextOneKept() {
        let long = String(repeating: "x", count: 9)
        #expect(Self.pieces([long + "\nok\n"], maximumLength: 8) == [.overlong(length: 9), Self.line("ok")])
        #expect(Self.pieces([long + "\r\nok\r\n"], maximumLength: 8) == [.overlong(length: 10), Self.line("ok")])
    }

    @Test func overlongLineInManyReadsStaysBounded() {
        var buffer = GpsdLineBuffer()
        var pieces: [GpsdLineBuffer.Piece] = []
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1000)
        for _ in 0..<1000 {
            chunk.withUnsafeBytes { buffer.append($0) { pieces.append($0) } }
        }
        #expect(pieces.isEmpty)
        #expect(buffer.unfinishedCount == 1_000_000)
        Array("\r\n{}\r\n".utf8).withUnsafeBytes { buffer.append($0) { pieces.append($0) } }
        #expect(pieces == [.overlong(length: 1_000_001), Self.line("{}")])
        #expect(buffer.unfinishedCount == 0)
    }

    @Test func defaultLimitIsLibgpsOwnBuffer() {
        let longest = String(repeating: "x", count: 8192)
        #expect(Self.pieces([longest + "\r\n", longest + "y\r\n"]) == [Self.line(longest), .overlong(length: 8194)])
    }
}
