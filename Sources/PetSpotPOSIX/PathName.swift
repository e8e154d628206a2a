/// Taking a path name apart as text (no file system access).
public enum PathName {
    /// The directory part of `path`: `nil` when it has no `/` (a name in the
    /// current directory), `/` for a name directly under the root.
    public static func directory(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path` (all of it when it has no `/`).
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
