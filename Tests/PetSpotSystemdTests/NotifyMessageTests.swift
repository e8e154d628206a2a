import PetSpotSystemd
import Testing

@Suite("sd_notify messages")
struct NotifyMessageTests {
    @Test(
        "wire text",
        arguments: [
            (NotifyMessage.ready(), "READY=1"),
            (NotifyMessage.ready(status: "serving"), "READY=1\nSTATUS=serving"),
            (NotifyMessage.reloading(monotonicMicroseconds: 123_456), "RELOADING=1\nMONOTONIC_USEC=123456"),
            (NotifyMessage.stopping(), "STOPPING=1"),
            (NotifyMessage.watchdog, "WATCHDOG=1"),
            (NotifyMessage.status("a\nb"), "STATUS=a b"),
        ])
    func text(message: NotifyMessage, expected: String) {
        #expect(message.text == expected)
    }

    @Test("the monotonic clock moves forward")
    func monotonic() {
        let first = SystemdNotifier.monotonicMicroseconds()
        let second = SystemdNotifier.monotonicMicroseconds()
        #expect(first > 0)
        #expect(second >= first)
    }
}
