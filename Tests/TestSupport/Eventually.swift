/// Polls `condition` every few milliseconds until it holds or `limit`
/// passes, for states that have no signal to wait on (a count going down
/// after a client leaves). The limit is generous: the machine may be
/// loaded, and a passing test never waits for it.
public func eventually(
    within limit: Duration = .seconds(60), every period: Duration = .milliseconds(2),
    _ condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: period)
    }
    return await condition()
}
