extension String {
    /// The text without leading and trailing whitespace and newlines.
    ///
    /// Written without Foundation so the rules stay pure Swift.
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
