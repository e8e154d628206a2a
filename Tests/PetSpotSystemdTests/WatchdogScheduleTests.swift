import PetSpotSystemd
import Testing

@Suite("WATCHDOG_USEC / WATCHDOG_PID")
struct WatchdogScheduleTests {
    @Test(
        "schedules",
        arguments: [
            (["WATCHDOG_USEC": "30000000"], Duration?.some(.seconds(15))),
            (["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "42"], .some(.milliseconds(200))),
            (["WATCHDOG_USEC": "400000", "WATCHDOG_PID": ""], .some(.milliseconds(200))),
            (["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "43"], nil),
            (["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "x"], nil),
            (["WATCHDOG_USEC": "0"], nil),
            (["WATCHDOG_USEC": "-5"], nil),
            (["WATCHDOG_USEC": "soon"], nil),
            ([:], nil),
        ] as [([String: String], Duration?)])
    func schedule(environment: [String: String], pingInterval: Duration?) {
        #expect(WatchdogSchedule(environment: environment, pid: 42)?.pingInterval == pingInterval)
    }
}
