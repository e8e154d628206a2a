import Glibc

extension String {
    /// `format` filled by C's `printf` rules (`"%.6f"`, `"%.1f MB"`): what
    /// Foundation's `String(format:)` gives for numbers, without Foundation.
    /// - Parameters:
    ///   - format: a printf format whose conversions match `arguments`
    ///     (`%f` for `Double`, `%d` for `Int32`, `%ld` for `Int`).
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else {
                return String(
                    decoding: buffer.prefix(Swift.max(0, needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            return withVaList(arguments) { again in
                var larger = [CChar](repeating: 0, count: needed + 1)
                _ = vsnprintf(&larger, larger.count, format, again)
                return String(decoding: larger.prefix(needed).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
}
