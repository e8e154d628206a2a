import FoundationEssentials
import PetSpotPOSIX

/// A posted form: its text fields and at most one file.
public struct SubmittedForm: Sendable, Hashable {
    /// Text fields by name (the last one wins when a name repeats).
    public var fields: [String: String]
    /// The uploaded file, when the form had a non-empty file part.
    public var file: UploadedFile?

    public init(fields: [String: String] = [:], file: UploadedFile? = nil) {
        self.fields = fields
        self.file = file
    }

    /// Field `name`, or `""`.
    public subscript(name: String) -> String { fields[name] ?? "" }
}

/// A file part of a multipart form.
public struct UploadedFile: Sendable, Hashable {
    /// The file name the browser sent (display only; never used as a path).
    public var fileName: String
    /// The bytes.
    public var data: Data
}

/// `application/x-www-form-urlencoded` bodies.
public enum URLEncodedForm {
    /// The fields of `body` (`a=1&b=x+y` → `["a": "1", "b": "x y"]`).
    public static func parse(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            guard !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    /// Encodes `fields` (for tests and redirects).
    public static func encode(_ fields: [(String, String)]) -> String {
        // ASCII letters and digits and `-._*` as they are, a space as `+`, every other UTF-8 byte as `%XX`.
        func escape(_ text: String) -> String {
            var escaped = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "*"):
                    escaped.unicodeScalars.append(Unicode.Scalar(byte))
                case UInt8(ascii: " "): escaped += "+"
                default:
                    let hex = Array("0123456789ABCDEF".unicodeScalars)
                    escaped.unicodeScalars.append(contentsOf: ["%", hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            return escaped
        }
        return fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = String(text.replacing("+", with: " "))
        return removingPercentEncoding(spaced) ?? spaced
    }

    /// `%XX` escapes decoded; `nil` when one is malformed or the bytes are not UTF-8 (as Foundation's
    /// `removingPercentEncoding`).
    static func removingPercentEncoding(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        func hexValue(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): byte - UInt8(ascii: "0")
            case let byte? where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte): byte - UInt8(ascii: "a") + 10
            case let byte? where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = hexValue(iterator.next()), let low = hexValue(iterator.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// `multipart/form-data` bodies (RFC 7578), enough for the photo form: a few
/// text parts and one file part. Bounded: at most ``maximumParts`` parts.
public enum MultipartForm {
    /// The most parts read.
    public static let maximumParts = 16

    /// The boundary of a `multipart/form-data; boundary=…` content type.
    public static func boundary(contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingWhitespace() }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var value = piece.dropFirst("boundary=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.isEmpty || value.count > 70 ? nil : String(value)
        }
        return nil
    }

    /// Parses `body`. - Returns: `nil` when it is not well formed.
    public static func parse(_ body: [UInt8], boundary: String) -> SubmittedForm? {
        let delimiter = Array("--\(boundary)".utf8)
        guard var start = find(delimiter, in: body, from: 0) else { return nil }
        var form = SubmittedForm()
        var parts = 0
        while parts < maximumParts {
            var cursor = start + delimiter.count
            // "--" after a delimiter ends the body.
            if cursor + 1 < body.count, body[cursor] == 0x2D, body[cursor + 1] == 0x2D { return form }
            guard let lineEnd = find([0x0D, 0x0A], in: body, from: cursor) else { return nil }
            cursor = lineEnd + 2
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: cursor) else { return nil }
            let headers = String(decoding: body[cursor..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else { return nil }
            let content = body[contentStart..<next]
            if let disposition = disposition(headers), let name = disposition.name {
                if let fileName = disposition.fileName {
                    if !content.isEmpty || !fileName.isEmpty {
                        form.file = UploadedFile(fileName: fileName, data: Data(content))
                    }
                } else {
                    form.fields[name] = String(decoding: content, as: UTF8.self)
                }
            }
            parts += 1
            start = next + 2
        }
        return form
    }

    /// `name` and `filename` of a part's `Content-Disposition: form-data` header.
    static func disposition(_ headers: String) -> (name: String?, fileName: String?)? {
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "content-disposition"
            else { continue }
            var name: String?
            var fileName: String?
            for parameter in pair[1].split(separator: ";").dropFirst() {
                let keyValue = parameter.split(separator: "=", maxSplits: 1)
                guard keyValue.count == 2 else { continue }
                var value = keyValue[1].trimmingWhitespace()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                    value = String(value.dropFirst().dropLast()).replacing("\\\"", with: "\"")
                }
                switch keyValue[0].trimmingWhitespace().lowercased() {
                case "name": name = value
                case "filename": fileName = value
                default: break
                }
            }
            return (name, fileName)
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        var index = from
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var match = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }
}
