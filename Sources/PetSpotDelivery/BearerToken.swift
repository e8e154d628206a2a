import Glibc
import FoundationEssentials
import PetSpotPOSIX

/// The backend's bearer token, read from `delivery.token_file` (never from
/// the configuration itself). Read again for every upload, so a rotated
/// token takes effect without a restart.
package enum BearerToken {
    /// Largest token file accepted.
    package static let maximumFileSize = 8192

    /// The token: the file's text without surrounding whitespace.
    /// - Throws: ``DeliveryError/token(_:)`` naming the file and what is wrong.
    package static func load(from path: String) throws(DeliveryError) -> String {
        let bytes: [UInt8]
        do throws(SystemCallError) {
            bytes = try BoundedFile.read(path, atMost: maximumFileSize + 1)
        } catch {
            throw .token("cannot read the token file \(path): \(error.reason)")
        }
        guard bytes.count <= maximumFileSize else {
            throw .token("the token file \(path) is larger than \(maximumFileSize) bytes")
        }
        let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard !token.isEmpty else { throw .token("the token file \(path) is empty") }
        // RFC 6750 b64token characters only: nothing that could break the header.
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
        guard token.allSatisfy(allowed.contains) else {
            throw .token(
                "the token in \(path) has characters a bearer token cannot have (one line of letters, digits, -._~+/=)")
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
