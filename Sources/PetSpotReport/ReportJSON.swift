import FoundationEssentials

/// The JSON coding of the report file and of the announcement sent to the
/// backend: sorted keys, slashes unescaped, dates as ISO 8601 UTC.
enum ReportJSON {
    /// `value` as JSON, pretty-printed when `pretty`.
    static func encode(_ value: some Encodable, pretty: Bool) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// Decodes JSON written by ``encode(_:pretty:)``.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: data)
    }
}
