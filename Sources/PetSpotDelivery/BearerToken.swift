#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The backend's bearer token, read from `delivery.token_file` (never from
/// the configuration itself). Read again for every upload, so a rotated
/// token takes effect without a restart.
package enum BearerToken {
    /// Largest token file accepted.
    package static let maximumFileSize = 8192

    /// The token: the file's text without surrounding whitespace.
    /// - Throws: ``DeliveryError/token(_:)`` naming the file and what is wrong.
    package static func load(from path: String) throws(DeliveryError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .token("cannot read the token file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .token("cannot read the token file \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > maximumFileSize { throw .token("the token file \(path) is larger than \(maximumFileSize) bytes") }
        }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw .token("the token file \(path) is empty") }
        // RFC 6750 b64token characters only: nothing that could break the header.
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
        guard token.allSatisfy(allowed.contains) else {
            throw .token("the token in \(path) has characters a bearer token cannot have (one line of letters, digits, -._~+/=)")
        }
        return token
    }

    /// Whether the file can be read by users other than its owner and group
    /// (a warning for the operator).
    package static func isWorldReadable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IROTH) != 0
    }
}
