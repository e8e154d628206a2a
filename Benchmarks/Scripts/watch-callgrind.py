#!/usr/bin/env python3
"""Instructions per fix on the watch path (issue 40; docs/PERFORMANCE.md).

gpsd 3.22 under `gpsfake -n` plays the same-information stream (GGA + GSA +
RMC per fix, as petspot-bench's SameInformationLog) at RATE fixes a second;
a relay reads it as gpsd's only client: the daemon (`kind = "gpsd"`,
everyone authorized), the relay floor (`petspot-bench relay-floor`) or the
floor with the daemon's threads (`petspot-bench handoff-floor`).
WATCHERS connections watch it (0: one connects to see the relay up, then
leaves, and the window is FIXES / RATE seconds of the wall clock). The
relay runs under `valgrind --tool=callgrind --instr-atstart=no`; once every watcher gets
fixes, `callgrind_control -i on`, then `-i off` after FIXES fixes reached
every watcher, then a dump (`OUTDIR/callgrind.out.1`): its total divided by
FIXES is the relay's user-space instructions per fix. valgrind 3.19 cannot
read the toolchain's DWARF 5: give it a copy made with
`strip --strip-debug` (function names stay). With a kind ending in
`-strace` the relay runs under `strace -c -f` instead (syscalls over the
process's life, OUTDIR/strace.txt); ending in `-cpu`, on its own, and the
script prints each thread's time on CPU (schedstat: user and kernel) per
fix over the same window (wall-clock: needs a quiet machine).

usage: watch-callgrind.py daemon|floor|handoff[-strace|-cpu] WATCHERS FIXES RATE OUTDIR BINARY
  BINARY: petspot-locationd for `daemon`, petspot-bench for `floor` and `handoff`.
"""
import os, sys, socket, subprocess, time, select, json, signal

kind, n, fixes, rate, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
binary = sys.argv[6] if len(sys.argv) > 6 else None
os.makedirs(out, exist_ok=True)
port = 29700 + os.getpid() % 200

def sentence(body):
    c = 0
    for b in body.encode(): c ^= b
    return "$%s*%02X\r\n" % (body, c)

feed = os.path.join(out, "feed.nmea")
with open(feed, "w") as f:
    for epoch in range(1800 * rate):
        cs = epoch * 100 // rate; s = cs // 100
        t = "%02d%02d%02d.%02d" % (12 + s // 3600 % 12, s // 60 % 60, s % 60, cs % 100)
        f.write(sentence("GPGGA,%s,5213.7820,N,02100.7320,E,1,08,0.9,110.0,M,34.0,M,," % t))
        f.write(sentence("GPGSA,A,3,,,,,,,,,,,,,1.6,0.9,1.3"))
        f.write(sentence("GPRMC,%s,A,5213.7820,N,02100.7320,E,0.0,0.0,261126,,,A" % t))

procs = []
def cleanup():
    for p in reversed(procs):
        try: os.killpg(p.pid, signal.SIGTERM)
        except Exception: pass
    for p in procs:
        try: p.wait(5)
        except Exception:
            # gpsfake may outlive a SIGTERM: its process group is ended for good.
            try: os.killpg(p.pid, signal.SIGKILL)
            except Exception: pass

gpsfake = subprocess.Popen(["gpsfake", "-q", "-n", "-c", str(1.0 / (3 * rate)), "-t", "-s", "38400", "-P", str(port), feed],
                           stdout=open(os.path.join(out, "gpsfake.log"), "w"), stderr=subprocess.STDOUT, start_new_session=True)
procs.append(gpsfake)
# wait for gpsd to answer with an active device
deadline = time.time() + 30
while time.time() < deadline:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b'?WATCH={"enable":true,"json":true}\n')
        buf = b""; t0 = time.time()
        while b'"class":"TPV"' not in buf and time.time() - t0 < 3:
            buf += s.recv(65536)
        s.close()
        if b'"class":"TPV"' in buf: break
    except OSError:
        time.sleep(0.3)
else:
    print("gpsd never came up"); cleanup(); sys.exit(1)

sock = os.path.join(out, "relay.sock")
strace = kind.endswith("-strace")
cpu = kind.endswith("-cpu")
kind = kind.replace("-strace", "").replace("-cpu", "")
vg = [] if cpu else ["strace", "-c", "-f", "-o", os.path.join(out, "strace.txt")] if strace else ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + os.path.join(out, "callgrind.out"),
      "--separate-threads=no", "--dump-instr=no"]
if kind == "daemon":
    toml = os.path.join(out, "d.toml")
    with open(toml, "w") as f:
        f.write(f'''[daemon]
socket = "{sock}"
socket_mode = "0600"
state_dir = "{out}/state"
max_clients = 256

[source]
kind = "gpsd"

[policy]
default = "authorized"
prompt = "allow"

[source.gpsd]
host = "127.0.0.1"
port = {port}
''')
    cmd = vg + [binary, "--config", toml, "--log-level", "info"]
else:
    cmd = vg + [binary, {"floor": "relay-floor", "handoff": "handoff-floor"}[kind], "--unix", sock, "--gpsd-port", str(port)]
relay = subprocess.Popen(cmd, stdout=open(os.path.join(out, "relay.log"), "w"), stderr=subprocess.STDOUT, start_new_session=True)
procs.append(relay)

def connect_watcher():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"location.watch"}\n')
    buf = b""
    while b'"subscription"' not in buf:
        d = s.recv(65536)
        if not d: raise OSError("closed")
        buf += d
    return s

deadline = time.time() + 120
while True:
    try:
        first = connect_watcher(); break
    except OSError:
        if time.time() > deadline: print("relay never came up"); cleanup(); sys.exit(1)
        time.sleep(0.5)
if n == 0: first.close()
watchers = ([first] if n > 0 else []) + [connect_watcher() for _ in range(n - 1)]
for w in watchers: w.setblocking(False)
counts = {w.fileno(): 0 for w in watchers}
poller = select.epoll()
for w in watchers: poller.register(w.fileno(), select.EPOLLIN)
def pump(seconds):
    end = time.time() + seconds
    while True:
        left = end - time.time()
        if left <= 0: return
        for fd, ev in poller.poll(left):
            try: d = os.read(fd, 1 << 16)
            except BlockingIOError: continue
            counts[fd] += d.count(b"\n")
pump(3.0)  # warm-up: every watcher gets fixes
# switch instrumentation on, count lines until `fixes` fixes per watcher passed, switch off
if not strace and not cpu: subprocess.run(["callgrind_control", "-i", "on", str(relay.pid)], stdout=subprocess.DEVNULL, check=True)
def threads():
    # Each thread's time on CPU (ns, schedstat) by thread id, with its name.
    found = {}
    for tid in os.listdir("/proc/%d/task" % relay.pid):
        try:
            name = open("/proc/%d/task/%s/comm" % (relay.pid, tid)).read().strip()
            found[tid] = (name, int(open("/proc/%d/task/%s/schedstat" % (relay.pid, tid)).read().split()[0]))
        except OSError:
            pass
    return found
cpu_before = threads() if cpu else {}
before = sum(counts.values())
t0 = time.time()
while sum(counts.values()) - before < fixes * n or (n == 0 and time.time() - t0 < fixes / rate):
    pump(0.05)
if not strace and not cpu: subprocess.run(["callgrind_control", "-i", "off", str(relay.pid)], stdout=subprocess.DEVNULL, check=True)
elapsed = time.time() - t0
delivered = sum(counts.values()) - before
fixes_seen = delivered / n if n else round(elapsed * rate)
per_thread = {}
for tid, (name, ns) in (threads() if cpu else {}).items():
    per_thread[name] = per_thread.get(name, 0) + ns - cpu_before.get(tid, (name, 0))[1]
pump(0.5)
if not strace and not cpu: subprocess.run(["callgrind_control", "-d", str(relay.pid)], stdout=subprocess.DEVNULL)
time.sleep(1)
print(json.dumps({"kind": kind, "watchers": n, "rate": rate, "delivered": delivered, "fixes": fixes_seen, "seconds": round(elapsed, 1),
                  **({"cpu_us_per_fix": {k: round(v / 1000 / fixes_seen, 1) for k, v in sorted(per_thread.items()) if v},
                      "loadavg": open("/proc/loadavg").read().split()[0]} if cpu else {})}))
for w in watchers: w.close()
cleanup()
