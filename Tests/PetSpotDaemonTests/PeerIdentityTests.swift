import Glibc
import PetSpotLocation
import PetSpotDaemon
import PetSpotPOSIX
import Testing

@Suite struct SystemdUnitTests {
    @Test(
        arguments: [
            ("0::/system.slice/petspot-report.service\n", "petspot-report.service"),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo.scope\n",
                "user@1000.service/app-foo.scope"
            ),
            // Hardening item 12: a user's manager or a delegated subtree cannot name a system unit.
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/petspot-kiosk.service\n",
                "user@1000.service/petspot-kiosk.service"
            ),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/petspot-kiosk.service/x\n",
                "user@1000.service/petspot-kiosk.service"
            ),
            ("0::/user.slice/user-1000.slice/user@1000.service\n", "user@1000.service"),
            ("0::/system.slice/evil.service/petspot-kiosk.service\n", "evil.service"),
            ("0::/system.slice/evil.service/sub.slice/petspot-kiosk.service\n", "evil.service"),
            ("0::/payload/petspot-kiosk.service\n", nil),
            ("0::/user.slice/user-1000.slice/session-3.scope\n", "session-3.scope"),
            ("0::/system.slice/docker.service/payload\n", "docker.service"),
            ("0::/init.scope\n", "init.scope"),
            ("0::/\n", nil),
            ("0::/user.slice/user-1000.slice\n", nil),
            ("", nil),
            (
                """
                12:pids:/system.slice/ssh.service
                11:cpu,cpuacct:/system.slice/ssh.service
                1:name=systemd:/system.slice/ssh.service
                """, "ssh.service"
            ),
            (
                """
                1:name=systemd:/system.slice/ssh.service
                0::/
                """, "ssh.service"
            ),
            (
                """
                1:name=systemd:/system.slice/old.service
                0::/system.slice/new.service
                """, "new.service"
            ),
            ("0::/system.slice/odd:name.service\n", "odd:name.service"),
            ("garbage\n", nil),
        ] as [(String, String?)])
    func parses(text: String, unit: String?) {
        #expect(SystemdUnit.parse(cgroup: text) == unit)
    }
}

@Suite struct PeerIdentityResolverTests {
    @Test func resolvesCurrentProcess() throws {
        let identity = PeerIdentityResolver().identity(uid: getuid(), gid: getgid(), pid: getpid())
        #expect(identity.uid == getuid())
        #expect(identity.gid == getgid())
        #expect(identity.user != nil)
        #expect(identity.user == UserDatabase.userName(uid: getuid()))
        #expect(identity.groupIDs?.first == getgid())
        #expect(identity.groups?.isEmpty == false)
        let executable = try #require(identity.executable)
        #expect(executable.hasPrefix("/"))
        #expect(executable.contains("PackageTests"), "\(executable)")
    }

    @Test func rootIsKnown() {
        #expect(UserDatabase.userName(uid: 0) == "root")
        #expect(UserDatabase.groupName(gid: 0) == "root")
    }

    @Test func injectedProcRoot() throws {
        var template = Array("/tmp/petspot-proc-XXXXXX".utf8CString)
        let root = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer {
            unlink("\(root)/77/cgroup")
            unlink("\(root)/77/exe")
            rmdir("\(root)/77")
            rmdir(root)
        }
        #expect(mkdir("\(root)/77", 0o755) == 0)
        let file = fopen("\(root)/77/cgroup", "w")
        fputs("0::/system.slice/petspot-report.service\n", file)
        fclose(file)
        #expect(symlink("/usr/bin/petspot-report", "\(root)/77/exe") == 0)

        let resolver = PeerIdentityResolver(procRoot: root)
        let identity = resolver.identity(uid: 0, gid: 0, pid: 77)
        #expect(identity.unit == "petspot-report.service")
        #expect(identity.executable == "/usr/bin/petspot-report")
        #expect(resolver.unit(pid: 78) == nil)
        #expect(resolver.executable(pid: 78) == nil)
    }
}

/// Hardening item 14: groups are the process's own, not the user database's.
@Suite struct ProcessGroupsTests {
    @Test func item14_groupsComeFromTheProcess() throws {
        var template = Array("/tmp/petspot-proc-XXXXXX".utf8CString)
        let root = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer {
            unlink("\(root)/91/status")
            rmdir("\(root)/91")
            rmdir(root)
        }
        #expect(mkdir("\(root)/91", 0o755) == 0)
        let file = fopen("\(root)/91/status", "w")
        fputs("Name:\tx\nUid:\t0\t0\t0\t0\nGroups:\t44 990 44 \n", file)
        fclose(file)
        let resolver = PeerIdentityResolver(procRoot: root)
        #expect(resolver.processGroupIDs(pid: 91, primary: 0) == [0, 44, 990])
        // root is in no group 44 in the database; the process holds it anyway, and that is what counts.
        #expect(resolver.identity(uid: 0, gid: 0, pid: 91).groupIDs == [0, 44, 990])
        #expect(resolver.processGroupIDs(pid: 92, primary: 0) == nil)
    }

    @Test func item14_thisProcessHoldsWhatProcfsSays() {
        let ids = PeerIdentityResolver().processGroupIDs(pid: getpid(), primary: getgid())
        var list = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(list.count), &list)
        #expect(Set(ids ?? []) == Set([getgid()] + list.prefix(Int(max(0, count)))))
    }
}
