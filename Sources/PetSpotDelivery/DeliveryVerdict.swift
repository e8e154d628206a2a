import FoundationEssentials
import PetSpotPOSIX

/// What one answer of the backend means for a report (SPEC §8).
package enum DeliveryVerdict: Sendable, Hashable {
    /// 2xx or 409: the backend has it. `reference` is the answer's JSON `id`;
    /// `note` says what was odd about the answer, if anything.
    case delivered(reference: String?, note: String?)
    /// 408, 429, 5xx, a redirect not followed, or no answer: try again,
    /// not before `after` when the backend said so (`Retry-After`).
    case retry(after: TimeInterval?, reason: String)
    /// Any other 4xx: kept for the operator, never retried automatically.
    case rejected(reason: String)

    /// Longest `Retry-After` honoured (a day): a larger one is taken as this.
    package static let maximumRetryAfter: TimeInterval = 86_400

    /// Classifies an HTTP answer.
    /// - Parameters:
    ///   - status: the status code.
    ///   - retryAfter: the `Retry-After` header, if any.
    ///   - body: the body, when it was read whole.
    ///   - bodyProblem: why the body was not read whole (too large, connection lost), or `nil`.
    ///   - now: for an HTTP-date `Retry-After`.
    package static func classify(
        status: Int, reason: String = "", retryAfter: String?, body: [UInt8], bodyProblem: String? = nil, now: Date
    ) -> DeliveryVerdict {
        let statusText = "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
        switch status {
        case 200...299, 409:
            if let bodyProblem {
                return .delivered(reference: nil, note: "\(statusText); \(bodyProblem)")
            }
            let reference = Self.reference(in: body)
            return .delivered(
                reference: reference,
                note: reference == nil && !body.isEmpty ? "\(statusText); the answer had no JSON id" : nil)
        case 408, 429, 500...599:
            let message = Self.message(in: body).map { ": \($0)" } ?? ""
            return .retry(after: retryAfter.flatMap { parseRetryAfter($0, now: now) }, reason: statusText + message)
        case 400...499:
            let message = Self.message(in: body).map { ": \($0)" } ?? ""
            return .rejected(reason: statusText + message)
        default:
            return .retry(after: nil, reason: "unexpected answer \(statusText)")
        }
    }

    /// `Retry-After`: delta-seconds or an HTTP-date, as seconds from `now` (0...``maximumRetryAfter``).
    package static func parseRetryAfter(_ text: String, now: Date) -> TimeInterval? {
        let trimmed = text.trimmingWhitespace()
        if let seconds = Int(trimmed) {
            guard seconds >= 0 else { return nil }
            return min(TimeInterval(seconds), maximumRetryAfter)
        }
        guard let date = httpDate(trimmed) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximumRetryAfter)
    }

    /// An HTTP-date in its preferred form (IMF-fixdate, RFC 9110 §5.6.7):
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, or `nil`.
    static func httpDate(_ text: String) -> Date? {
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
            let minute = Int(clock[1]), let second = Int(clock[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let components = DateComponents(
            year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// The JSON object's `id` (string or integer), at most 200 printable characters.
    package static func reference(in body: [UInt8]) -> String? {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(body)), let id = answer.id else {
            return nil
        }
        let clean = printable(id)
        return clean.isEmpty || clean.count > 200 ? nil : clean
    }

    /// The backend's explanation: a JSON `error` / `message` / `detail` /
    /// `title` string, or the start of a text body; at most 300 printable characters.
    package static func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if let answer = try? JSONDecoder().decode(Answer.self, from: Data(body)) {
            return answer.message.map { String(printable($0).prefix(300)) }
        }
        let text = printable(String(decoding: body.prefix(300), as: UTF8.self))
        return text.isEmpty ? nil : text
    }

    /// A JSON object answer, read leniently: fields of another type are ignored.
    private struct Answer: Decodable {
        var id: String?
        var message: String?

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let idKey = Key(stringValue: "id")
            if let text = try? container.decode(String.self, forKey: idKey) {
                id = text
            } else if let number = try? container.decode(Int64.self, forKey: idKey) {
                id = String(number)
            }
            for name in ["error", "message", "detail", "title"] {
                if let text = try? container.decode(String.self, forKey: Key(stringValue: name)) {
                    message = text
                    break
                }
            }
        }
    }

    private static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }
            )
        ).trimmingWhitespace()
    }
}
