import Glibc
import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import PetSpotOutbox

/// One upload of one report: `POST {endpoint}/announcements` (SPEC §8),
/// its answer read with a byte limit, classified into a ``DeliveryVerdict``.
///
/// Redirects: async-http-client follows none; a 307 or 308 to the same
/// scheme, host and port is followed here (at most 3 times, method and body
/// kept); any other redirect is an error to retry, never followed to
/// another host.
package struct AnnouncementUploader: Sendable {
    package let client: HTTPClient
    /// The base URL, without a trailing slash.
    package let endpoint: String
    /// The whole exchange: connection, upload, the answer's head and body,
    /// redirects followed included.
    package let timeout: TimeInterval
    /// Most answer bytes read.
    package let responseLimit: Int
    /// Sent as `User-Agent`.
    package let userAgent: String

    package init(
        client: HTTPClient, endpoint: String, timeout: TimeInterval, responseLimit: Int = 64 << 10,
        userAgent: String = "petspot-report"
    ) {
        self.client = client
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.timeout = timeout
        self.responseLimit = responseLimit
        self.userAgent = userAgent
    }

    /// `{endpoint}/announcements`.
    package var url: String { endpoint + "/announcements" }

    /// Uploads `report` and classifies the answer; transport failures are `.retry`.
    package func upload(
        _ report: ClaimedReport, token: String, now: @Sendable () -> Date
    ) async -> (verdict: DeliveryVerdict, status: Int?) {
        guard let photoSize = Self.fileSize(report.photoPath) else {
            return (.rejected(reason: "the photo file \(report.photoFileName) is missing from the station"), nil)
        }
        let form = MultipartForm(
            announcement: Array(report.announcement), photoFileName: report.photoFileName,
            photoMimeType: report.photoMimeType)
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
        var target = url
        do {
            for _ in 0...3 {
                var request = HTTPClientRequest(url: target)
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Idempotency-Key", value: report.id.uuidString.lowercased())
                request.headers.add(name: "Content-Type", value: form.contentType)
                request.headers.add(name: "Accept", value: "application/json")
                request.headers.add(name: "User-Agent", value: userAgent)
                request.body = .stream(
                    MultipartBodySequence(form: form, photoPath: report.photoPath, photoBytes: photoSize),
                    length: .known(Int64(form.length(photoBytes: photoSize))))
                let response = try await client.execute(request, deadline: deadline)
                let status = Int(response.status.code)
                if [307, 308].contains(status) {
                    let location = response.headers.first(name: "Location") ?? ""
                    if let next = Self.sameOrigin(location, as: target) {
                        target = next
                        continue
                    }
                    return (
                        .retry(
                            after: nil,
                            reason:
                                "HTTP \(status): redirected to \(location.prefix(200)); not followed (another host, or not a URL): check delivery.endpoint"
                        ), status
                    )
                }
                if (300...399).contains(status) {
                    let location = response.headers.first(name: "Location") ?? "nowhere"
                    return (
                        .retry(
                            after: nil,
                            reason:
                                "HTTP \(status): redirected to \(location.prefix(200)); not followed: check delivery.endpoint"
                        ),
                        status
                    )
                }
                var body: [UInt8] = []
                var problem: String?
                do {
                    if let buffer = try await Self.collect(response.body, upTo: responseLimit, until: deadline) {
                        body = Array(buffer.readableBytesView)
                    } else {
                        // A body that trickles in (a byte now and then, never a read timeout).
                        problem =
                            "the answer's body was not complete within the timeout (\(Self.seconds(timeout))) and was not read further"
                    }
                } catch is NIOTooManyBytesError {
                    // Not read further: the connection is closed, whatever its size.
                    problem = "the answer's body was larger than \(responseLimit) bytes and was not read"
                } catch {
                    // The status is known; a broken body only loses the reference.
                    problem = "the answer's body could not be read (\(Self.describe(error)))"
                }
                let verdict = DeliveryVerdict.classify(
                    status: status, reason: response.status.reasonPhrase,
                    retryAfter: response.headers.first(name: "Retry-After"), body: body, bodyProblem: problem,
                    now: now())
                return (verdict, status)
            }
            return (.retry(after: nil, reason: "more than 3 redirects within \(endpoint)"), nil)
        } catch {
            return (.retry(after: nil, reason: Self.describe(error)), nil)
        }
    }

    /// The whole body, at most `limit` bytes, or `nil` when `deadline` passes
    /// first: async-http-client's deadline ends with the answer's head, and
    /// its read timeout restarts with every byte, so a body sent a byte at a
    /// time would otherwise hold the upload (and the sender) for as long as
    /// the backend likes. Reading is cancelled at the deadline, which closes
    /// the connection.
    /// - Throws: what reading throws (`NIOTooManyBytesError` past `limit`).
    static func collect(
        _ body: HTTPClientResponse.Body, upTo limit: Int, until deadline: NIODeadline
    ) async throws -> ByteBuffer? {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                let left = (deadline - .now()).nanoseconds
                if left > 0 { try await Task.sleep(nanoseconds: UInt64(left)) }
                return nil
            }
            // The first to finish decides; the other is cancelled.
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// `timeout` for a message: `3 s`, `2.5 s`.
    static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
    }

    /// `location` resolved against `base` when it has the same scheme, host and port.
    static func sameOrigin(_ location: String, as base: String) -> String? {
        guard let baseURL = URL(string: base), let resolved = URL(string: location, relativeTo: baseURL)?.absoluteURL,
            resolved.scheme?.lowercased() == baseURL.scheme?.lowercased(),
            resolved.host?.lowercased() == baseURL.host?.lowercased(),
            (resolved.port ?? defaultPort(resolved.scheme)) == (baseURL.port ?? defaultPort(baseURL.scheme))
        else { return nil }
        return resolved.absoluteString
    }

    private static func defaultPort(_ scheme: String?) -> Int { scheme?.lowercased() == "https" ? 443 : 80 }

    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// A transport error in words for the operator.
    static func describe(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded: return "no complete answer within the timeout"
            case .readTimeout: return "the backend stopped answering (read timeout)"
            case .connectTimeout: return "could not connect within the timeout"
            case .remoteConnectionClosed: return "the backend closed the connection before answering"
            case .cancelled: return "the upload was cancelled"
            default: return "HTTP client error: \(client)"
            }
        }
        if error is HTTPParserError { return "the backend's answer is not valid HTTP (\(error))" }
        let text = String(describing: error)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}

/// The request body: the form's head, the photo file in 64 KiB chunks, the tail.
struct MultipartBodySequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let form: MultipartForm
    let photoPath: String
    let photoBytes: Int

    func makeAsyncIterator() -> Iterator { Iterator(self) }

    final class Iterator: AsyncIteratorProtocol {
        private enum Stage { case head, photo, tail, done }
        private let sequence: MultipartBodySequence
        private var stage = Stage.head
        private var descriptor: Int32 = -1
        private var sent = 0

        init(_ sequence: MultipartBodySequence) { self.sequence = sequence }

        func next() async throws -> ByteBuffer? {
            switch stage {
            case .head:
                stage = .photo
                descriptor = open(sequence.photoPath, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw PhotoReadError(message: "cannot open \(sequence.photoPath)") }
                return ByteBuffer(bytes: sequence.form.head)
            case .photo:
                let wanted = Swift.min(1 << 16, sequence.photoBytes - sent)
                if wanted > 0 {
                    var chunk = [UInt8](repeating: 0, count: wanted)
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        sent += count
                        return ByteBuffer(bytes: chunk[0..<count])
                    }
                    if count < 0 && errno == EINTR { return try await next() }
                    throw PhotoReadError(message: "the photo \(sequence.photoPath) ended early or cannot be read")
                }
                closeFile()
                stage = .done
                return ByteBuffer(bytes: sequence.form.tail)
            case .tail, .done:
                return nil
            }
        }

        private func closeFile() {
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }

        deinit { closeFile() }
    }
}

struct PhotoReadError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
