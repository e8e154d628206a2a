import PetSpotSystemd
import Testing

@Suite("NOTIFY_SOCKET addresses")
struct NotifyAddressTests {
    @Test(
        "accepted forms",
        arguments: [
            ("/run/systemd/notify", NotifyAddress.path("/run/systemd/notify")),
            ("@/org/freedesktop/systemd1/notify/1", NotifyAddress.abstract("/org/freedesktop/systemd1/notify/1")),
            ("@x", NotifyAddress.abstract("x")),
        ])
    func accepted(value: String, expected: NotifyAddress) {
        #expect(NotifyAddress(value) == expected)
    }

    @Test(
        "rejected forms",
        arguments: ["", "@", "relative/path", "vsock:2:1234", "/" + String(repeating: "a", count: 107)])
    func rejected(value: String) {
        #expect(NotifyAddress(value) == nil)
    }

    @Test("sun_path bytes: a path ends in NUL, an abstract name starts with one")
    func socketPathBytes() {
        #expect(NotifyAddress.path("/a").socketPathBytes == [47, 97, 0])
        #expect(NotifyAddress.abstract("ab").socketPathBytes == [0, 97, 98])
    }

    @Test("a notifier without NOTIFY_SOCKET is disabled and sending is a no-op")
    func disabledNotifier() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.send(.ready()) == nil)
    }
}
