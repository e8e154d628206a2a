import PetSpotJSON
import Testing

/// Member-by-member objects are the canonical serializer's bytes.
@Suite struct JSONObjectWriterTests {
    @Test func writesWhatTheSerializerWritesAndOmitsAbsentValues() {
        var inner = JSONObjectWriter()
        inner.add("a", number: 1)
        inner.add("b", string: nil)
        inner.add("c", string: "tab\there \"q\" \\ zoë /")
        inner.finish()
        var outer = JSONObjectWriter()
        outer.add("array", .array([.string("x"), .number(2.5), .null]))
        outer.add("empty", string: nil)
        outer.add("inner", object: inner)
        outer.add("n", number: 0.1 + 0.2)
        outer.add("nan", number: .nan)
        outer.add("none", nil)
        outer.add("whole", number: 4_000_000_000)
        outer.finish()

        var expected: [UInt8] = []
        JSONValue.object([
            "array": .array([.string("x"), .number(2.5), .null]),
            "inner": .object(["a": .number(1), "c": .string("tab\there \"q\" \\ zoë /")]),
            "n": .number(0.1 + 0.2), "nan": .number(.nan), "whole": .number(4_000_000_000),
        ]).write(utf8: &expected)
        #expect(String(decoding: outer.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test func anEmptyObject() {
        var empty = JSONObjectWriter()
        empty.add("skipped", string: nil)
        empty.finish()
        #expect(empty.bytes == Array("{}".utf8))
    }
}
